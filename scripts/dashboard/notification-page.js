// @ts-nocheck: a browser script, and the project's typecheck has no DOM library.
// The page of one notification's path (/_local/dashboard/notifications/<trace id>), or of the recent
// notifications (/_local/dashboard/notifications), from the dashboard server's journal
// (notification-path.ts). Served as is; no build step.
const BASE = '/_local/dashboard/notifications';
const REFRESH_MS = 3000;
const traceId = location.pathname.slice(BASE.length + 1).replace(/\/$/, '');

function element(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  node.append(...children);
  return node;
}

const row = (cells, attributes = {}) =>
  element('tr', attributes, ...cells.map((cell) => element('td', {}, cell)));
const header = (...names) => element('tr', {}, ...names.map((name) => element('th', {}, name)));
const time = (iso) => (iso ? new Date(iso).toISOString().slice(11, 23) : '');

/** What a step says beyond its message: an attempt's outcome and status first. */
function detailText(details) {
  const { outcome, status, reason, ...rest } = details;
  const head = [outcome, status === undefined ? undefined : `HTTP ${status}`, reason]
    .filter(Boolean)
    .join(' · ');
  const tail = Object.entries(rest).map(
    ([key, value]) => `${key} ${typeof value === 'object' ? JSON.stringify(value) : value}`,
  );
  return [head, ...tail].filter(Boolean).join(' · ');
}

async function showPath() {
  document.getElementById('title').textContent = `Notification ${traceId}`;
  document.getElementById('head').replaceChildren(header('Time (UTC)', 'Function', 'Step', 'Details'));
  const response = await fetch(`${BASE}/${traceId}/data`, { cache: 'no-store' });
  const steps = response.ok ? await response.json() : [];
  document.getElementById('steps').replaceChildren(
    ...(steps.length === 0
      ? [row(['', '', 'No step of this trace id has been logged since npm start began.', ''])]
      : steps.map((step) =>
          row([time(step.at), step.function, step.message, detailText(step.details)], {
            class: step.level,
          }),
        )),
  );
}

async function showRecent() {
  document.getElementById('title').textContent = 'Recent notifications';
  document.getElementById('head').replaceChildren(header('Trace id', 'First step (UTC)', 'Steps'));
  const response = await fetch(`${BASE}/data`, { cache: 'no-store' });
  const recent = response.ok ? await response.json() : [];
  document
    .getElementById('steps')
    .replaceChildren(
      ...recent.map((trace) =>
        row([
          element('a', { href: `${BASE}/${trace.traceId}` }, element('code', {}, trace.traceId)),
          `${time(trace.at)} ${trace.first ?? ''}`,
          String(trace.steps),
        ]),
      ),
    );
}

const refresh = () => (traceId ? showPath() : showRecent()).catch((error) => console.error(error));
refresh();
setInterval(refresh, REFRESH_MS);
