// @ts-nocheck: a browser script, and the project's typecheck has no DOM library.
// The local dashboard's page script (served as is; no build step): the metric widgets drawn with
// uPlot from /_local/dashboard/data, and the subscriptions table from the API on the same origin.
/* global uPlot */
/** The API, whose GET routes the dashboard's server passes on (server.ts). */
const API = '/_local/dashboard/api';
const REFRESH_MS = 3000;
const HOUR_S = 3600;
/** The table shows this many subscriptions, the first page of GET /subscriptions. */
const TABLE_ROWS = 25;
/** The table's columns (page.html). */
const COLUMNS = '7';
const COLOURS = ['#1f77b4', '#d62728', '#ff7f0e', '#2ca02c'];

/** @type {Map<string, { plot: any, headlines: HTMLElement }>} */
const charts = new Map();

function element(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  node.append(...children);
  return node;
}

const headlineText = (series) =>
  series.headline === null ? '–' : String(Math.round(series.headline * 100) / 100);
const headlineNote = (series) =>
  series.stat === 'Sum' ? 'last hour' : /^p\d/.test(series.stat) ? `${series.stat}, last hour` : 'now';

function drawWidget(widget, now) {
  let chart = charts.get(widget.title);
  if (!chart) {
    const box = element('div', { class: 'widget' }, element('h2', {}, widget.title));
    const headlines = element('div', { class: 'headlines' });
    const plotArea = element('div');
    box.append(headlines, plotArea);
    document.getElementById('widgets').append(box);
    const plot = new uPlot(
      {
        width: 400,
        height: 170,
        scales: { x: { time: true } },
        series: [
          {},
          ...widget.series.map((s, i) => ({
            label: s.label,
            stroke: COLOURS[i % COLOURS.length],
            width: 2,
            points: { show: true, size: 6 },
          })),
        ],
        legend: { show: false }, // the headlines above name the lines, in their colours
        axes: [{ space: 70, values: '{HH}:{mm}' }, { size: 64 }], // room for 30,000 (ms)
      },
      [[], ...widget.series.map(() => [])],
      plotArea,
    );
    chart = { plot, headlines };
    charts.set(widget.title, chart);
  }
  chart.headlines.replaceChildren(
    ...widget.series.map((s, i) =>
      element(
        'span',
        { class: 'headline' },
        element('span', { style: `color: ${COLOURS[i % COLOURS.length]}` }, '■ '),
        `${s.label} `,
        element('b', { 'data-metric': s.name, 'data-stat': s.stat }, headlineText(s)),
        ' ',
        element('small', {}, headlineNote(s)),
      ),
    ),
  );
  // One x axis for the widget's lines: every period any of them has a point for.
  const times = [...new Set(widget.series.flatMap((s) => s.points.map(([t]) => t)))].sort((a, b) => a - b);
  const data = [
    times.map((t) => t / 1000),
    ...widget.series.map((s) => {
      const byTime = new Map(s.points);
      return times.map((t) => byTime.get(t) ?? null);
    }),
  ];
  chart.plot.setData(data, false);
  chart.plot.setScale('x', { min: now / 1000 - HOUR_S, max: now / 1000 + 60 });
}

async function json(path) {
  const response = await fetch(path, { cache: 'no-store' });
  if (!response.ok) throw new Error(`${path} answered ${response.status}`);
  return response.json();
}

async function refreshMetrics() {
  const data = await json('/_local/dashboard/data');
  for (const widget of data.widgets) drawWidget(widget, data.now);
  document.getElementById('updated').textContent = `Updated ${new Date(data.now).toLocaleTimeString()}.`;
}

const time = (iso) => new Date(iso).toLocaleTimeString();
const count = (n) => n.toLocaleString();

/** The largest page of the API's lists (lib/http/paging.ts). */
const PAGE = 1000;
/** Failing addresses a subscription's row names before "and N more"; all are in its full list. */
const FAILING_SHOWN = 5;

/** A page of one of the API's lists, and the query of the next page if more follow (read on this origin). */
async function listPage(path, query) {
  const response = await fetch(`${API}${path}${query}`, { cache: 'no-store' });
  if (!response.ok) throw new Error(`${path} answered ${response.status}`);
  const next = /<([^>]*)>;\s*rel="next"/.exec(response.headers.get('link') ?? '');
  return { items: await response.json(), next: next ? new URL(next[1]).search : undefined };
}

/** Every item of one of the API's lists, along its `Link: <…>; rel="next"`. */
async function allPages(path) {
  const items = [];
  for (let query = `?limit=${PAGE}`; query; ) {
    const page = await listPage(path, query);
    items.push(...page.items);
    query = page.next;
  }
  return items;
}

/**
 * Per address: its newest delivery and what is wrong with it, if anything. An address is failing
 * when its newest attempt failed (a failure after its newest delivery), it has a dead letter, or the
 * subscription's endpoint is suspended. Failing addresses first, each part in the API's address order.
 */
function addressEntries(deliveries, letters) {
  const byAddress = new Map(deliveries.map((d) => [d.ResourceAddress, { status: d, problems: [] }]));
  for (const letter of letters) {
    const entry = byAddress.get(letter.ResourceAddress) ?? { status: letter, problems: [] };
    byAddress.set(letter.ResourceAddress, entry);
    entry.letters = (entry.letters ?? 0) + 1;
  }
  const entries = [...byAddress.values()];
  for (const entry of entries) {
    const { LastDelivered: delivered, LastFailure: failure, EndpointSuspended: suspended } = entry.status;
    if (failure && (!delivered || Date.parse(failure.FailedAt) > Date.parse(delivered.DeliveredAt)))
      entry.problems.push(`${failure.Reason} (attempt ${failure.Attempts}, ${time(failure.FailedAt)})`);
    if (entry.letters)
      entry.problems.push(entry.letters === 1 ? 'dead-lettered' : `${entry.letters} dead letters`);
    if (suspended) entry.problems.push(`endpoint suspended since ${time(suspended.Since)}`);
  }
  return [...entries.filter((e) => e.problems.length > 0), ...entries.filter((e) => e.problems.length === 0)];
}

/** An address below the subscription's, as its part below it (the full one in its title). */
function addressCell(address, under) {
  const shown = address.startsWith(`${under}/`) ? `…${address.slice(under.length)}` : address;
  return element('span', { 'data-address': address, title: address }, shown);
}

const deliveredText = ({ Id, DeliveredAt, LatencyMs }) =>
  `${Id} at ${time(DeliveredAt)}${LatencyMs === undefined ? '' : `, ${LatencyMs} ms`}`;

/** Every address of a subscription, failing first, in a box of bounded height. */
function addressList(entries, under) {
  const rows = entries.map(({ status, problems }) =>
    element(
      'tr',
      { class: problems.length > 0 ? 'failure' : '' },
      element('td', {}, addressCell(status.ResourceAddress, under)),
      element('td', {}, status.LastDelivered ? deliveredText(status.LastDelivered) : 'none yet'),
      element('td', {}, problems.join('; ') || '–'),
    ),
  );
  return element(
    'div',
    { class: 'address-list' },
    element(
      'table',
      {},
      element(
        'thead',
        {},
        element(
          'tr',
          {},
          element('th', {}, 'Address'),
          element('th', {}, 'Newest delivered'),
          element('th', {}, 'Failing'),
        ),
      ),
      element('tbody', {}, ...rows),
    ),
  );
}

/** The <details> of a subscription's full list, built when opened (or `open` already). */
function expander(entries, under, open) {
  const details = element(
    'details',
    {},
    element('summary', {}, `All ${count(entries.length)} addresses, failing first`),
  );
  const fill = () => {
    if (details.open && !details.querySelector('.address-list')) details.append(addressList(entries, under));
  };
  details.addEventListener('toggle', fill);
  details.open = open;
  fill();
  return details;
}

/** What a subscription's row shows: every address's status, and its first 1,000 dead letters. */
async function subscriptionData(subscription) {
  const id = subscription.SubscriptionId;
  const [deliveries, { items: letters, next: moreLetters }] = await Promise.all([
    allPages(`/subscriptions/${id}/deliveries`),
    listPage(`/subscriptions/${id}/dead-letters`, `?limit=${PAGE}`),
  ]);
  return { deliveries, letters, moreLetters };
}

/**
 * A subscription as two rows of its own <tbody>: a summary of the addresses it covers (how many,
 * the newest delivery, the failing ones first) and, one click away, all of them. The summary stays
 * a few lines high however many addresses there are (docs/local-run.md).
 */
function subscriptionBody(subscription, { deliveries, letters, moreLetters }, listOpen) {
  const id = subscription.SubscriptionId;
  const under = subscription.ResourceAddress;
  const entries = addressEntries(deliveries, letters);
  const failing = entries.filter((e) => e.problems.length > 0);
  const newest = deliveries
    .filter((d) => d.LastDelivered)
    .reduce((a, b) => (!a || b.LastDelivered.DeliveredAt > a.LastDelivered.DeliveredAt ? b : a), undefined);
  const suspended = deliveries.find((d) => d.EndpointSuspended)?.EndpointSuspended;
  const lines = (items) => items.flatMap((item, i) => (i === 0 ? [item] : [element('br'), item]));
  return element(
    'tbody',
    { 'data-subscription': id },
    element(
      'tr',
      {},
      element('td', {}, element('code', {}, id.slice(0, 8))),
      element('td', {}, under),
      element(
        'td',
        {},
        subscription.EndpointUri,
        ...(suspended
          ? [element('br'), element('span', { class: 'failure' }, `suspended since ${time(suspended.Since)}`)]
          : []),
      ),
      element(
        'td',
        { 'data-addresses': String(entries.length), 'data-failing': String(failing.length) },
        count(entries.length),
        ...(failing.length > 0
          ? [element('br'), element('span', { class: 'failure' }, `${count(failing.length)} failing`)]
          : []),
      ),
      element(
        'td',
        { 'data-newest': newest?.LastDelivered.Id ?? '' },
        ...(newest
          ? [addressCell(newest.ResourceAddress, under), element('br'), deliveredText(newest.LastDelivered)]
          : ['none yet']),
      ),
      element(
        'td',
        { class: failing.length > 0 ? 'failure' : '', 'data-failing-first': '' },
        ...lines([
          ...failing
            .slice(0, FAILING_SHOWN)
            .map(({ status, problems }) =>
              element('span', {}, addressCell(status.ResourceAddress, under), `: ${problems.join('; ')}`),
            ),
          ...(failing.length > FAILING_SHOWN
            ? [`and ${count(failing.length - FAILING_SHOWN)} more in the list below`]
            : []),
          ...(failing.length === 0 ? ['–'] : []),
        ]),
      ),
      element(
        'td',
        { 'data-dead-letters': String(letters.length) },
        `${count(letters.length)}${moreLetters ? '+' : ''}`,
      ),
    ),
    // One address: the row has said all there is.
    ...(entries.length > 1
      ? [
          element(
            'tr',
            { class: 'addresses' },
            element('td', { colspan: COLUMNS }, expander(entries, under, listOpen)),
          ),
        ]
      : []),
  );
}

async function refreshSubscriptions() {
  const subscriptions = await json(`${API}/subscriptions?limit=${TABLE_ROWS}`);
  const data = await Promise.all(subscriptions.map(subscriptionData));
  // The lists a reader has open stay open, scrolled where they were: read and rebuilt in one task,
  // so that a click between the reads above and this cannot be undone.
  const table = document.getElementById('subscriptions');
  const scrolled = new Map();
  for (const body of table.querySelectorAll(':scope > tbody[data-subscription]')) {
    if (body.querySelector('details')?.open)
      scrolled.set(body.dataset.subscription, body.querySelector('.address-list')?.scrollTop ?? 0);
  }
  const bodies = subscriptions.map((subscription, i) =>
    subscriptionBody(subscription, data[i], scrolled.has(subscription.SubscriptionId)),
  );
  for (const body of table.querySelectorAll(':scope > tbody')) body.remove();
  table.append(
    ...(bodies.length > 0
      ? bodies
      : [element('tbody', {}, element('tr', {}, element('td', { colspan: COLUMNS }, 'No subscriptions.')))]),
  );
  for (const body of bodies) {
    const list = body.querySelector('.address-list');
    if (list) list.scrollTop = scrolled.get(body.dataset.subscription) ?? 0;
  }
}

async function refresh() {
  const results = await Promise.allSettled([refreshMetrics(), refreshSubscriptions()]);
  for (const result of results) if (result.status === 'rejected') console.error(result.reason);
  document.body.dataset.refreshed = String(Number(document.body.dataset.refreshed ?? 0) + 1);
  setTimeout(refresh, REFRESH_MS);
}

refresh();
