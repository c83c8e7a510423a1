// @ts-check
/**
 * A sample O-Cloud event consumer: prints each notification it receives and answers 204.
 * `npm run consumer` (CONSUMER_PORT, default 9090; not PORT, which is npm start's); subscribe
 * http://127.0.0.1:9090/events.
 */
import http from 'node:http';

const port = Number(process.env.CONSUMER_PORT || 9090);
let count = 0;

const server = http.createServer((req, res) => {
  let raw = '';
  req.setEncoding('utf8');
  req.on('data', (chunk) => {
    if (raw.length < 1_000_000) raw += chunk;
  });
  req.on('end', () => {
    res.writeHead(204).end();
    count += 1;
    let summary = raw;
    try {
      const event = JSON.parse(raw);
      const values = (event.data?.values ?? [])
        .map(
          (/** @type {{ ResourceAddress: string, value: unknown }} */ v) =>
            `${v.ResourceAddress} = ${v.value}`,
        )
        .join(', ');
      summary = `${event.type} @ ${event.time}: ${values}`;
    } catch {
      // not JSON: print it as it came
    }
    const id = req.headers['webhook-id'] ?? '-';
    console.log(
      `#${count} ${new Date().toISOString()} ${req.method} ${req.url} webhook-id=${id}\n   ${summary}`,
    );
  });
});

server.listen(port, '127.0.0.1', () => {
  console.log(`Sample consumer listening on http://127.0.0.1:${port}/events (Ctrl-C stops it)`);
});
for (const signal of /** @type {const} */ (['SIGINT', 'SIGTERM'])) {
  process.on(signal, () => {
    server.close();
    server.closeAllConnections();
    process.exit(0);
  });
}
