/**
 * Prometheus metrics in the text exposition format (version 0.0.4), kept by hand: counters and histograms
 * keyed by label values, and gauges read at scrape time.
 */
import { monitorEventLoopDelay } from "node:perf_hooks";

/** Request latency buckets (s): from a cache hit (~1 ms) to a VGGT graph (minutes). */
const LATENCY_BUCKETS_S = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];
/** Stage duration buckets (s): bundle finishing and graphs take 0.1-10 s on the built-in simulator. */
const STAGE_BUCKETS_S = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 300, 1800];

type Labels = Record<string, string>;

/** A gauge's samples, read at scrape time. */
export interface GaugeFamily {
  name: string;
  help: string;
  samples: Array<{ labels: Labels; value: number }>;
}

const key = (l: Labels) => JSON.stringify(Object.entries(l).sort());
const escape = (v: string) => v.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(/"/g, '\\"');
const fmtLabels = (l: Labels, extra: Labels = {}) => {
  const all = { ...l, ...extra };
  const parts = Object.entries(all).map(([k, v]) => `${k}="${escape(v)}"`);
  return parts.length ? `{${parts.join(",")}}` : "";
};
const num = (x: number) => (Number.isFinite(x) ? String(x) : x > 0 ? "+Inf" : x < 0 ? "-Inf" : "NaN");

class Counter {
  private values = new Map<string, { labels: Labels; value: number }>();
  constructor(
    readonly name: string,
    readonly help: string,
  ) {}
  inc(labels: Labels = {}, by = 1): void {
    const k = key(labels);
    const e = this.values.get(k);
    if (e) e.value += by;
    else this.values.set(k, { labels, value: by });
  }
  render(): string[] {
    const out = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} counter`];
    for (const { labels, value } of this.values.values()) out.push(`${this.name}${fmtLabels(labels)} ${num(value)}`);
    return out;
  }
}

class Histogram {
  private values = new Map<string, { labels: Labels; counts: number[]; sum: number; count: number }>();
  constructor(
    readonly name: string,
    readonly help: string,
    readonly buckets: number[],
  ) {}
  observe(labels: Labels, seconds: number): void {
    const k = key(labels);
    let e = this.values.get(k);
    if (!e) this.values.set(k, (e = { labels, counts: this.buckets.map(() => 0), sum: 0, count: 0 }));
    for (let i = 0; i < this.buckets.length; i++) if (seconds <= this.buckets[i]!) e.counts[i]!++;
    e.sum += seconds;
    e.count++;
  }
  render(): string[] {
    const out = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} histogram`];
    for (const { labels, counts, sum, count } of this.values.values()) {
      this.buckets.forEach((b, i) => out.push(`${this.name}_bucket${fmtLabels(labels, { le: String(b) })} ${counts[i]}`));
      out.push(`${this.name}_bucket${fmtLabels(labels, { le: "+Inf" })} ${count}`);
      out.push(`${this.name}_sum${fmtLabels(labels)} ${num(sum)}`);
      out.push(`${this.name}_count${fmtLabels(labels)} ${count}`);
    }
    return out;
  }
}

export class Metrics {
  readonly requests = new Counter("esi3d_http_requests_total", "HTTP requests by route template, method and status code");
  readonly latency = new Histogram("esi3d_http_request_duration_seconds", "HTTP request latency by route template", LATENCY_BUCKETS_S);
  readonly stages = new Histogram(
    "esi3d_stage_duration_seconds",
    "duration of pipeline stages run by the server (finish, graph, answer, run)",
    STAGE_BUCKETS_S,
  );
  readonly graphCache = new Counter(
    "esi3d_graph_requests_total",
    "POST /v1/graphs by outcome: built, stored (answered from the store) or joined (same graph already being built)",
  );
  private readonly gauges: Array<{ name: string; help: string; read: () => Array<{ labels: Labels; value: number }> }> = [];
  private readonly asyncReads: Array<() => Promise<GaugeFamily[]>> = [];
  private readonly loopDelay = monitorEventLoopDelay({ resolution: 10 });

  constructor() {
    this.loopDelay.enable();
  }

  /**
   * Gauges read together at scrape time from a source that answers asynchronously (a queue's Redis): one
   * read per scrape serves them all. A failed read renders nothing of them; the reader reports its own health.
   */
  asyncGauges(read: () => Promise<GaugeFamily[]>): void {
    this.asyncReads.push(read);
  }

  /** The exposition text with the asynchronous gauges read now (what GET /metrics sends). */
  async scrape(): Promise<string> {
    const families = (await Promise.all(this.asyncReads.map((r) => r().catch((): GaugeFamily[] => [])))).flat();
    const out = families.flatMap((f) => [
      `# HELP ${f.name} ${f.help}`,
      `# TYPE ${f.name} gauge`,
      ...f.samples.map(({ labels, value }) => `${f.name}${fmtLabels(labels)} ${num(value)}`),
    ]);
    return this.render() + (out.length ? out.join("\n") + "\n" : "");
  }

  gauge(name: string, help: string, read: () => number | Array<{ labels: Labels; value: number }>): void {
    this.gauges.push({
      name,
      help,
      read: () => {
        const v = read();
        return typeof v === "number" ? [{ labels: {}, value: v }] : v;
      },
    });
  }

  render(): string {
    const out: string[] = [...this.requests.render(), ...this.latency.render(), ...this.stages.render(), ...this.graphCache.render()];
    for (const g of this.gauges) {
      out.push(`# HELP ${g.name} ${g.help}`, `# TYPE ${g.name} gauge`);
      for (const { labels, value } of g.read()) out.push(`${g.name}${fmtLabels(labels)} ${num(value)}`);
    }
    out.push(
      "# HELP esi3d_event_loop_delay_seconds event-loop delay percentiles since start (CPU work on the main thread shows up here)",
      "# TYPE esi3d_event_loop_delay_seconds gauge",
    );
    for (const p of [50, 99]) out.push(`esi3d_event_loop_delay_seconds{quantile="${p / 100}"} ${num(this.loopDelay.percentile(p) / 1e9)}`);
    out.push(`esi3d_event_loop_delay_seconds{quantile="1"} ${num(this.loopDelay.max / 1e9)}`);
    return out.join("\n") + "\n";
  }

  close(): void {
    this.loopDelay.disable();
  }
}
