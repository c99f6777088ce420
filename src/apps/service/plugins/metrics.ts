/**
 * Request metrics as a fastify plugin (fastify-plugin: its hook sees every route): requests by route
 * template, method and status, latency, and the gauges of the queues, runs and sessions.
 */
import fp from "fastify-plugin";
import type { FastifyPluginAsync } from "fastify";
import type { Services } from "../services.js";

const requestMetricsPlugin: FastifyPluginAsync<{ services: Services }> = async (app, { services: s }) => {
  const { metrics, ctx } = s;
  metrics.gauge("esi3d_cpu_jobs_in_flight", "CPU jobs running in worker threads", () => ctx.cpu.running);
  metrics.gauge("esi3d_cpu_jobs_queued", "CPU jobs waiting for a worker (the queue depth)", () => ctx.cpu.queued);
  metrics.gauge("esi3d_cpu_jobs_limit", "CPU jobs allowed at once (--cpu-jobs) and waiting (--queue)", () => [
    { labels: { kind: "running" }, value: ctx.cpu.concurrency },
    { labels: { kind: "queued" }, value: ctx.cpu.queue },
  ]);
  metrics.gauge("esi3d_cpu_job_seconds_estimate", "moving average of CPU job durations by kind, behind Retry-After", () =>
    ["graph", "finish", "answer"].map((kind) => ({ labels: { kind }, value: ctx.cpu.averageSeconds(kind) })),
  );
  metrics.gauge("esi3d_rejected_total", "requests refused with 503 at a concurrency limit, by limiter (a counter kept as a gauge)", () => [
    { labels: { limiter: "cpu" }, value: ctx.cpu.rejected },
    { labels: { limiter: "llm" }, value: s.answers.llm.rejected },
  ]);
  metrics.gauge("esi3d_llm_calls_in_flight", "LLM answers in flight", () => s.answers.llm.running);
  metrics.gauge("esi3d_llm_calls_queued", "LLM answers waiting", () => s.answers.llm.queued);
  metrics.gauge("esi3d_runs_active", "evaluation runs running", () => s.runs.activeCount);
  metrics.gauge("esi3d_sessions_open", "capture sessions open", () => s.sessions.openCount());

  app.addHook("onResponse", async (req, reply) => {
    const route = req.routeOptions.url ?? "unmatched";
    metrics.requests.inc({ method: req.method, route, status: String(reply.statusCode) });
    metrics.latency.observe({ route }, reply.elapsedTime / 1000);
  });
};

export const requestMetrics = fp(requestMetricsPlugin, { fastify: "5.x", name: "esi3d-request-metrics" });
