// @ts-check
/**
 * Part 2, bundle size and cold start. Sizes: every function's bundle split by where its bytes come
 * from: our code (lib/, functions/) and middy, which the budget bounds; the AWS SDK (its clients
 * named), reported beside it; any other package. Cold starts: for each API route, fresh Node
 * processes that load a bundle and serve one request against DynamoDB Local and the local queue,
 * rotating between three sides: the function as deployed, a bare handler making exactly the calls
 * the route's first request makes with the same SDK clients, and the bare one-GetItem handler.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { loadFresh, median, ratio, sameCallsBundleFor, verdict } from './common.mjs';
import { runSample, warmUp } from './routes.mjs';

/** A function's own code (lib/, functions/) and middy, bundled, at most (the AWS SDK is reported beside it). */
export const OWN_CODE_BUDGET_KIB = 64;
/** Cold start over a bare handler making the same calls. */
export const SAME_CALLS_BUDGET = 1.1;
/** Cold start over the bare one-GetItem handler: the outer ceiling, whatever calls a route needs. */
export const CEILING_BUDGET = 1.3;
const CHILD = fileURLToPath(new URL('./cold-child.mjs', import.meta.url));

/**
 * @param {string} file
 * @param {unknown} event
 * @param {Record<string, string>} env
 * @returns {Promise<{ wallMs: number, ms: number, loadMs: number, status: number | null, trace?: { started: number, ended: number, target: string }[] }>} wallMs: spawn → answer
 */
function coldStart(file, event, env) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [CHILD, file], {
      env: { ...env, BENCH_EVENT: JSON.stringify(event), BENCH_TRACE: process.env.BENCH_TRACE ?? '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    /** When the answer reached this process; the child's exit (another ~13 ms) is not part of a cold start. */
    let answeredAt = 0;
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.stdout.on('data', (chunk) => {
      out += chunk;
      if (answeredAt === 0 && /\n@@bench [^\n]*\n/.test(out)) answeredAt = performance.now();
    });
    child.stderr.on('data', (chunk) => {
      err += chunk;
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      const line = out.split('\n').find((l) => l.startsWith('@@bench '));
      if (!line) return reject(new Error(`cold start of ${file} failed (${code}):\n${out}\n${err}`));
      resolve({ wallMs: answeredAt - started, ...JSON.parse(line.slice(8)) });
    });
  });
}

/**
 * BENCH_TRACE=1: one line per cold start with its timeline (ms from the process' time origin):
 * bundle loaded, each outgoing HTTP request's start → end, answer.
 * @param {{ wallMs: number, ms: number, loadMs: number, trace?: { started: number, ended: number, target: string }[] }} result
 */
function traceLine(result) {
  const calls = (result.trace ?? []).map(
    (t) =>
      `${t.started.toFixed(1)}→${t.ended.toFixed(1)} ${t.target.replace('POST / DynamoDB_20120810.', '')}`,
  );
  return `wall ${result.wallMs.toFixed(1)} loaded ${result.loadMs.toFixed(1)} answered ${result.ms.toFixed(1)} | ${calls.join(' | ')}`;
}

/** `@scope/name` or `name` of the innermost node_modules package; undefined for our own files. */
function packageOf(/** @type {string} */ path) {
  const inPackage = path.lastIndexOf('node_modules/');
  if (inPackage < 0) return undefined;
  const [first = '', second = ''] = path.slice(inPackage + 'node_modules/'.length).split('/');
  return first.startsWith('@') ? `${first}/${second}` : first;
}

/**
 * A bundle's bytes by where they come from (esbuild's metafile inputs): our own code and middy;
 * the AWS SDK (@aws-sdk/*, @smithy/*, @aws/*, and whatever else the bare one-GetItem handler,
 * which is the SDK alone, bundles), with its clients' own bytes; and the other packages.
 * @param {import('esbuild').Metafile} metafile @param {Set<string>} sdkPackages the bare handler's
 */
export function bytesBySource(metafile, sdkPackages) {
  const split = {
    own: 0,
    sdk: 0,
    /** @type {Map<string, number>} */ clients: new Map(),
    /** @type {Map<string, number>} */ other: new Map(),
  };
  for (const output of Object.values(metafile.outputs)) {
    for (const [path, { bytesInOutput: bytes }] of Object.entries(output.inputs)) {
      const name = packageOf(path);
      if (name === undefined || name.startsWith('@middy/')) split.own += bytes;
      else if (/^@(aws-sdk|smithy|aws)\//.test(name) || sdkPackages.has(name)) {
        split.sdk += bytes;
        if (name.startsWith('@aws-sdk/client-'))
          split.clients.set(name, (split.clients.get(name) ?? 0) + bytes);
      } else split.other.set(name, (split.other.get(name) ?? 0) + bytes);
    }
  }
  return split;
}

const kib = (/** @type {number} */ bytes) => (bytes / 1024).toFixed(1);
/** @param {Map<string, number>} sizes */
const named = (sizes) =>
  [...sizes]
    .filter(([, bytes]) => bytes >= 512)
    .map(([name, bytes]) => `${name.replace('@aws-sdk/', '')} ${kib(bytes)}`)
    .join(', ');

/**
 * @param {{ bundles: import('./common.mjs').BundleFile[], print: (line: string) => void }} options
 */
function bundleSizes({ bundles, print }) {
  const bare = bundles.find((b) => b.name === 'bareGetItem');
  if (!bare) throw new Error('no bare bundle');
  const sdkPackages = new Set(
    Object.values(bare.metafile.outputs).flatMap((output) => Object.keys(output.inputs).map(packageOf)),
  );
  print('bundles as serverless package builds them (esbuild.config.cjs), KiB by source:');
  print(
    `function                   bundle   own+middy  budget ≤ ${OWN_CODE_BUDGET_KIB}    AWS SDK (its clients)                              other packages`,
  );
  for (const fn of bundles) {
    if (fn.name.startsWith('bare')) continue;
    const split = bytesBySource(fn.metafile, /** @type {Set<string>} */ (sdkPackages));
    const check = verdict(
      '2 bundle size',
      `${fn.name}: own code and middy ${kib(split.own)} KiB of ${kib(fn.bytes)} KiB (AWS SDK ${kib(split.sdk)} KiB)`,
      Number(kib(split.own)),
      OWN_CODE_BUDGET_KIB,
    ).slice(-4);
    const sdk = `${kib(split.sdk)} (${named(split.clients)})`;
    print(
      `${fn.name.padEnd(26)} ${kib(fn.bytes).padStart(6)}   ${kib(split.own).padStart(9)}  ${check}           ${sdk.padEnd(50)} ${named(split.other) || '-'}`,
    );
  }
  print(`(the bare one-GetItem handler bundled the same way: ${kib(bare.bytes)} KiB, all of it AWS SDK)`);
}

/** The bare handler's commands (bareSameCallsSource) and the DynamoDB operations they are. */
const OPERATIONS = /** @type {const} */ ({
  Get: 'GetItem',
  BatchGet: 'BatchGetItem',
  Query: 'Query',
  TransactWrite: 'TransactWriteItems',
});

/**
 * The same-calls plan of a route whose samples give none: the calls its bare side makes, recorded
 * (not sent) from a sample of its own. Only for routes whose bare side is one call, or calls that
 * do not depend on earlier answers (those give a plan of their own, as subscribe does).
 * @param {import('./routes.mjs').Route} route @param {import('./routes.mjs').Fixtures} fixtures
 * @param {Record<string, any>} sdk the bare SDK bundle the baselines use
 * @returns {Promise<{ plan: import('./common.mjs').SameCallsPlan, sample: import('./routes.mjs').Sample }>}
 */
async function recordedPlan(route, fixtures, sdk) {
  const sample = await route.sample(fixtures);
  /** @type {import('./common.mjs').PlanCall[]} */
  const steps = [];
  const client = fixtures.db;
  fixtures.db = /** @type {any} */ ({
    send: async (/** @type {{ input: Record<string, unknown> }} */ command) => {
      const name = /** @type {(keyof typeof OPERATIONS)[]} */ (Object.keys(OPERATIONS)).find(
        (n) => command instanceof sdk[`${n}Command`],
      );
      if (!name) throw new Error(`${route.name}: its bare side sends a command the same-calls handler lacks`);
      steps.push({ command: name, input: command.input });
      return {};
    },
  });
  try {
    await sample.bare();
  } finally {
    fixtures.db = client;
  }
  const label = steps.map((s) => ('command' in s ? OPERATIONS[s.command] : 'POST')).join(' + ');
  return { plan: { label, steps }, sample };
}

/**
 * @param {{ bundles: import('./common.mjs').BundleFile[], routes: import('./routes.mjs').Route[],
 *   fixtures: import('./routes.mjs').Fixtures, handlers: Record<string, import('./routes.mjs').Bundle>,
 *   bareSdkFile: string, endpoint: string, env: Record<string, string>, print: (line: string) => void,
 *   runs: number, warmup: number }} options
 */
export async function coldStarts({
  bundles,
  routes,
  fixtures,
  handlers,
  bareSdkFile,
  endpoint,
  env,
  print,
  runs,
  warmup,
}) {
  print(
    runs === 0
      ? '\n## 2. Bundle size (BENCH_SIZES_ONLY: cold starts not timed)'
      : `\n## 2. Bundle size and cold start (${runs} fresh processes per side per function, sides rotated; time = spawn → first answer)`,
  );
  bundleSizes({ bundles, print });
  if (runs === 0) return;
  const bare = bundles.find((b) => b.name === 'bareGetItem');
  if (!bare) throw new Error('no bare bundle');
  /** BENCH_FUNCTIONS=a,b times only those functions (a diagnostic run; the summary then covers only them). */
  const only = process.env.BENCH_FUNCTIONS?.split(',');
  const bareSdk = /** @type {any} */ (await loadFresh(bareSdkFile));
  fixtures.useBareSdk({ client: bareSdk.client(endpoint), sdk: bareSdk });
  // DynamoDB Local is a JVM: until its JIT has compiled the paths a request takes (a transaction,
  // a batch read), each costs it several times what it costs later, and that would be charged
  // to whichever side makes more kinds of call.
  await warmUp(routes, fixtures, handlers, warmup);
  print(`\n(DynamoDB Local warmed first: every route's request ${warmup} times in-process)`);
  print(
    `cold start, median ms: fn = as deployed, same = bare handler making the route's calls with the same clients, get = bare one GetItem`,
  );
  print(
    `function                 fn / same / get ms        vs same ≤ ${SAME_CALLS_BUDGET}   vs get ≤ ${CEILING_BUDGET}`,
  );
  for (const fn of bundles) {
    if (fn.name.startsWith('bare') || (only && !only.includes(fn.name))) continue;
    // The queue- and schedule-driven functions (fanOut, deliver, emitGauges) and the $default
    // route serve no API request to time; their sizes are above.
    const route = routes.find((r) => r.fn === fn.name);
    if (!route) continue;
    /** @type {Record<'fn' | 'same' | 'get', number[]>} */
    const took = { fn: [], same: [], get: [] };
    // The bare side loads the same AWS clients as the function (SQS's and KMS's where it has them).
    const sameBundle = bundles.find((b) => b.name === sameCallsBundleFor(fn));
    if (!sameBundle) throw new Error(`${fn.name}: no same-calls bundle`);
    let label = '';
    for (let i = 0; i < runs; i++) {
      const sample = await route.sample(fixtures);
      const own = await sample.sameCalls?.();
      const recorded = own ? undefined : await recordedPlan(route, fixtures, bareSdk);
      const plan = own ?? recorded?.plan;
      if (!plan) throw new Error(`${route.name}: no same-calls plan`);
      label = plan.label;
      /** @type {[keyof typeof took, string, unknown, number][]} */
      const sides = [
        ['fn', fn.file, sample.event, sample.expect],
        ['same', sameBundle.file, plan, 200],
        ['get', bare.file, {}, 200],
      ];
      // Rotate which side starts first, so that none always meets a warmer (or busier) machine.
      const order = [...sides.slice(i % sides.length), ...sides.slice(0, i % sides.length)];
      for (const [side, file, event, expected] of order) {
        const result = await coldStart(file, event, env);
        if (result.status !== expected) {
          throw new Error(
            `${fn.name} (${side}): cold request answered ${result.status}, expected ${expected}`,
          );
        }
        took[side].push(result.wallMs);
        if (result.trace) print(`  trace ${side} ${traceLine(result)}`);
      }
      // Untimed: consumes what the sample seeded for part 1's bare side (a publisher to delete,
      // for one), which cleanup leaves to it, so that later figures read the seeded table only.
      await sample.bare();
      await sample.cleanup?.();
      if (recorded) {
        // Its bare side ran in the same-calls process; the handler's side is consumed here.
        const handler = handlers[route.fn];
        if (!handler) throw new Error(`no bundle for ${route.fn}`);
        await runSample(route, handler, recorded.sample);
        await recorded.sample.cleanup?.();
      }
    }
    /** @param {keyof typeof took} side the median, pair by pair, of fn's time over that side's */
    const ratioTo = (side) => median(took.fn.map((f, i) => f / Number(took[side][i])));
    const [same, get] = [ratioTo('same'), ratioTo('get')];
    const times = [took.fn, took.same, took.get].map((ms) => median(ms).toFixed(1));
    const [fnMs, sameMs = '', getMs = ''] = times;
    /** The verdict's PASS or FAIL; the summary names the function, the figures and the budget. */
    const check = (
      /** @type {string} */ what,
      /** @type {string} */ base,
      /** @type {number} */ value,
      /** @type {number} */ budget,
    ) =>
      verdict(
        '2 cold start',
        `${fn.name} vs ${what}: median per-round ratio ${ratio(value)}, budget ${budget} (medians ${fnMs} / ${base} ms)`,
        value,
        budget,
      ).slice(-4);
    print(
      `${fn.name.padEnd(24)} ${`${times.join(' / ')}`.padEnd(25)} ${ratio(same)} ${check(`same calls (${label})`, sameMs, same, SAME_CALLS_BUDGET)}   ${ratio(get)} ${check('one GetItem', getMs, get, CEILING_BUDGET)}`,
    );
    print(`${''.padEnd(25)}same calls: ${label}`);
  }
}
