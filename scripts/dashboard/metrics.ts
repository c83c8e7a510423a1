/**
 * The local dashboard's data: the widgets of the CloudWatch dashboard (infrastructure/dashboard.cjs)
 * that show the service's own metrics, fed by the embedded-metric records the handlers print —
 * the records `npm start`'s status line counts and CloudWatch reads when deployed. The queue and
 * API Gateway widgets have no local source and are left out.
 */
import cloudWatchDashboard from '../../infrastructure/dashboard.cjs';

/** The CloudWatch dashboard keeps an hour of one-minute points in view; so does this one. */
const WINDOW_MS = 3600_000;

export interface Widget {
  title: string;
  periodMs: number;
  lines: Array<{ name: string; stat: string; label: string }>;
}

/** One EMF record, as the handlers print it. */
type EmfRecord = Record<string, unknown> & {
  _aws?: {
    Timestamp?: number;
    CloudWatchMetrics?: Array<{ Namespace: string; Metrics?: { Name: string }[] }>;
  };
};

/**
 * The dashboard's metric widgets whose every line is one of the service's metrics, as defined
 * for the stage `local`.
 */
export async function localWidgets(): Promise<Widget[]> {
  const variables: Record<string, string> = { 'self:service': 'ocloud-notifications', 'sls:stage': 'local' };
  const resource = await cloudWatchDashboard({ resolveVariable: async (name) => variables[name] ?? '' });
  const body: {
    widgets: Array<{ type: string; properties: { title: string; period?: number; metrics?: unknown[][] } }>;
  } = JSON.parse(resource.Properties.DashboardBody['Fn::Sub']);
  return body.widgets
    .filter(
      (w) =>
        w.type === 'metric' && w.properties.metrics?.every((m) => m[0] === cloudWatchDashboard.NAMESPACE),
    )
    .map((w) => ({
      title: w.properties.title,
      periodMs: (w.properties.period ?? 60) * 1000,
      lines: (w.properties.metrics ?? []).map((m) => {
        const options = m.at(-1) as { stat: string; label?: string };
        const name = String(m[1]);
        return { name, stat: options.stat, label: options.label ?? name };
      }),
    }));
}

export type MetricsHistory = ReturnType<typeof createMetricsHistory>;

/** The values each metric had over the last hour, by time, from the EMF records handed to `record`. */
export function createMetricsHistory({ now = Date.now }: { now?: () => number } = {}) {
  /** Metric name → [time, value] in arrival order. */
  const seen = new Map<string, Array<[number, number]>>();
  return {
    record(record: EmfRecord) {
      const time = Number(record._aws?.Timestamp) || now();
      for (const directive of record._aws?.CloudWatchMetrics ?? []) {
        if (directive.Namespace !== cloudWatchDashboard.NAMESPACE) continue;
        for (const { Name } of directive.Metrics ?? []) {
          if (record[Name] === undefined) continue;
          const list = seen.get(Name) ?? [];
          seen.set(Name, list);
          for (const value of [record[Name]].flat()) list.push([time, Number(value) || 0]);
        }
      }
      const since = now() - WINDOW_MS;
      for (const list of seen.values()) {
        const kept = list.findIndex(([t]) => t >= since);
        list.splice(0, kept === -1 ? list.length : kept);
      }
    },
    /**
     * The widget's lines as the CloudWatch widget computes them, one point per period, and a
     * headline: the hour's total for a Sum, the latest value for a gauge, the hour's percentile.
     */
    series(widget: Widget) {
      return widget.lines.map(({ name, stat, label }) => {
        const values = seen.get(name) ?? [];
        const periods = new Map<number, number[]>();
        for (const [time, value] of values) {
          const start = time - (time % widget.periodMs);
          const period = periods.get(start);
          if (period) period.push(value);
          else periods.set(start, [value]);
        }
        const points = [...periods]
          .sort((a, b) => a[0] - b[0])
          .map(([start, list]): [number, number] => [start, statistic(stat, list)]);
        const all = values.map(([, value]) => value);
        // A count with no record is 0, as the status line says; a gauge or latency not known yet is not.
        let headline = stat === 'Sum' ? 0 : null;
        if (all.length > 0)
          headline = stat === 'Sum' || /^p\d/.test(stat) ? statistic(stat, all) : (all.at(-1) ?? null);
        return { label, name, stat, headline, points };
      });
    },
  };
}

/** CloudWatch's statistics that the dashboard uses: Sum, Maximum, Minimum, Average and pNN (nearest rank). */
function statistic(stat: string, values: number[]) {
  if (stat === 'Sum') return values.reduce((sum, v) => sum + v, 0);
  if (stat === 'Maximum') return values.reduce((max, v) => Math.max(max, v), -Infinity);
  if (stat === 'Minimum') return values.reduce((min, v) => Math.min(min, v), Infinity);
  if (stat === 'Average') return values.reduce((sum, v) => sum + v, 0) / values.length;
  const percentile = /^p(\d+(\.\d+)?)$/.exec(stat);
  if (!percentile) throw new Error(`the local dashboard has no statistic ${stat}`);
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((Number(percentile[1]) / 100) * sorted.length);
  return sorted[Math.max(0, rank - 1)] ?? 0;
}
