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
        axes: [{ space: 70, values: '{HH}:{mm}' }, { size: 50 }],
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

async function subscriptionRow(subscription) {
  const id = subscription.SubscriptionId;
  const [deliveries, deadLetters] = await Promise.all([
    json(`${API}/subscriptions/${id}/deliveries`),
    json(`${API}/subscriptions/${id}/dead-letters?limit=100`),
  ]);
  const delivered = deliveries
    .filter((d) => d.LastDelivered)
    .map((d) => {
      const { Id, DeliveredAt, LatencyMs } = d.LastDelivered;
      const latency = LatencyMs === undefined ? '' : `, ${LatencyMs} ms`;
      return `${d.ResourceAddress}: ${Id} at ${time(DeliveredAt)}${latency}`;
    });
  const failures = deliveries
    .filter((d) => d.LastFailure)
    .map((d) => {
      const { FailedAt, Reason, Attempts } = d.LastFailure;
      return `${d.ResourceAddress}: ${Reason} (attempt ${Attempts}, ${time(FailedAt)})`;
    });
  const lines = (items) => items.flatMap((text, i) => (i === 0 ? [text] : [element('br'), text]));
  return element(
    'tr',
    { 'data-subscription': id },
    element('td', {}, element('code', {}, id.slice(0, 8))),
    element('td', {}, subscription.ResourceAddress),
    element('td', {}, subscription.EndpointUri),
    element('td', {}, ...lines(delivered.length > 0 ? delivered : ['none yet'])),
    element(
      'td',
      { class: failures.length > 0 ? 'failure' : '' },
      ...lines(failures.length > 0 ? failures : ['–']),
    ),
    element('td', { 'data-dead-letters': String(deadLetters.length) }, String(deadLetters.length)),
  );
}

async function refreshSubscriptions() {
  const subscriptions = await json(`${API}/subscriptions?limit=${TABLE_ROWS}`);
  const rows = await Promise.all(subscriptions.map(subscriptionRow));
  document
    .getElementById('subscriptions')
    .replaceChildren(
      ...(rows.length > 0 ? rows : [element('tr', {}, element('td', { colspan: '6' }, 'No subscriptions.'))]),
    );
}

async function refresh() {
  const results = await Promise.allSettled([refreshMetrics(), refreshSubscriptions()]);
  for (const result of results) if (result.status === 'rejected') console.error(result.reason);
  document.body.dataset.refreshed = String(Number(document.body.dataset.refreshed ?? 0) + 1);
  setTimeout(refresh, REFRESH_MS);
}

refresh();
