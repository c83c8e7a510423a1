/**
 * The console of `npm start`: quiet by default, one status line every few seconds, and everything
 * serverless offline and the handlers print behind LOG_LEVEL=debug. The counts come from the
 * handlers' embedded-metric records (a JSON line with `_aws`), the ones CloudWatch reads when
 * deployed: subscriptions and publishers are the table's totals as last reported, the rest are
 * counted since this `npm start` began. Still shown: error lines, the `notice` of a line that has
 * one, anything unexpected. Not shown: offline's banner and per-request lines, the handlers' other
 * lines (a failing consumer shows as a growing "failed attempts"; dead letters get their own line).
 */

const COUNTERS = {
  EventsPublished: 'published',
  NotificationsDelivered: 'delivered',
  NotificationDeliveryFailures: 'failed',
  NotificationsDeadLettered: 'deadLettered',
} as const;
const GAUGES = {
  ActiveSubscriptions: 'subscriptions',
  ActivePublishers: 'publishers',
} as const;
type Counts = Record<(typeof COUNTERS)[keyof typeof COUNTERS], number> &
  Partial<Record<(typeof GAUGES)[keyof typeof GAUGES], number>>;

/** serverless offline's own chatter: its banner, function list and one pair of lines per request. */
const OFFLINE_NOISE = [
  /^\s*$/,
  /^(GET|HEAD|POST|PUT|PATCH|DELETE|OPTIONS|ANY) \//,
  /^\(λ: /,
  /^Starting Offline/,
  /^Offline \[/,
  /^Function names exposed/,
  /^ {3}\* /,
  /^Scheduling \[/,
  /^Server ready/,
  /^[│┌└├]/,
];

/** `onMetrics`: each EMF record, as counted (the local dashboard's feed) */
export function createLocalConsole({
  debug = false,
  print = (text) => process.stdout.write(`${text}\n`),
  onMetrics,
}: {
  debug?: boolean;
  print?: (text: string) => void;
  onMetrics?: (record: Record<string, unknown>) => void;
} = {}) {
  const counts: Counts = { published: 0, delivered: 0, failed: 0, deadLettered: 0 };
  let lastShown = '';

  const count = (emfRecord: Record<string, unknown>) => {
    for (const [metric, key] of Object.entries(COUNTERS)) {
      const value = emfRecord[metric];
      if (value !== undefined) counts[key] += values(value).reduce((sum, v) => sum + v, 0);
    }
    for (const [metric, key] of Object.entries(GAUGES)) {
      const value = emfRecord[metric];
      if (value !== undefined) counts[key] = values(value).at(-1);
    }
  };

  return {
    counts,
    /** One line the service printed. */
    line(text: string) {
      let json: Record<string, unknown> | undefined;
      if (text.startsWith('{')) {
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
      }
      if (json?._aws) {
        count(json);
        onMetrics?.(json);
      }
      if (debug) return print(text);
      if (json?._aws) return;
      if (json && typeof json.level === 'string') {
        // A line meant for whoever runs the service (a redriven dead letter dropped) says so.
        if (typeof json.notice === 'string') print(json.notice);
        else if (json.level === 'error')
          print(`error: ${json.message ?? text}${json.route ? ` (${json.route})` : ''}`);
        return;
      }
      if (!OFFLINE_NOISE.some((noise) => noise.test(text))) print(text);
    },
    /** The status line, or undefined when nothing changed since the last one. */
    status(now = new Date()) {
      const known = (n: number | undefined) => (n === undefined ? '?' : String(n));
      const text = [
        `subscriptions ${known(counts.subscriptions)}`,
        `publishers ${known(counts.publishers)}`,
        `since start: events published ${counts.published}`,
        `delivered ${counts.delivered}`,
        `failed attempts ${counts.failed}`,
        `dead-lettered ${counts.deadLettered}`,
      ].join(' · ');
      if (text === lastShown) return undefined;
      lastShown = text;
      return `[${now.toISOString().slice(11, 19)}] ${text}`;
    },
  };
}

/** An EMF value: a number, or an array of them when one record carries several. */
function values(value: unknown) {
  return (Array.isArray(value) ? value : [value]).map((v) => Number(v) || 0);
}
