/**
 * Scene graphs: POST /v1/graphs builds one from a stored bundle with the options of `esi3d graph`, in a
 * worker. Graph building is deterministic, so the graph id is a hash of the bundle id and the options that
 * matter for the chosen source: the same request is answered from the store (200), and identical requests
 * arriving together share one build.
 */
import { canonicalJson, sha256Hex } from "../../../core/hash.js";
import * as z from "zod";
import { SceneGraphSchema } from "../../../scenegraph/types.js";
import { effectiveInstances } from "../../../scenegraph/options.js";
import { DiagnosisSchema } from "../../../scenegraph/diagnosisSchema.js";
import { Lru } from "../../../core/lru.js";
import { fromZod, HttpError, notFound } from "./errors.js";
import { checkId, hashedId } from "./ids.js";
import { GRAPH_CACHE_ENTRIES } from "./limits.js";
import { GraphOptionsSchema, GraphRequestSchema, type GraphOptions } from "./schemas.js";
import type { ServerContext } from "./context.js";
import type { GraphResult } from "./serviceWorker.js";

const GraphRecordSchema = z
  .object({
    format: z.literal("esi3d-served-graph/1"),
    id: z.string(),
    bundle: z.string(),
    options: GraphOptionsSchema,
    created_at: z.string(),
    timings_ms: z.record(z.string(), z.number()),
    graph: SceneGraphSchema,
    diagnosis: DiagnosisSchema,
  })
  .strict();
export type GraphRecord = z.infer<typeof GraphRecordSchema>;

/** The options that change the graph for a source (the others are ignored, as the CLI ignores them). */
function relevantOptions(o: GraphOptions): Partial<GraphOptions> {
  const base: Partial<GraphOptions> = { source: o.source, masks: o.masks, instances: effectiveInstances(o.masks, o.instances) };
  if (o.source === "noisy") return { ...base, noiseLevel: o.noiseLevel, noiseSeed: o.noiseSeed, noiseComponents: o.noiseComponents };
  if (o.source === "vggt") return { ...base, vggt: o.vggt };
  return base;
}

function graphIdOf(bundle: string, options: GraphOptions): string {
  return hashedId("graph", sha256Hex(canonicalJson({ bundle, options: relevantOptions(options) })));
}

export class GraphService {
  private inflight = new Map<string, Promise<GraphRecord>>();
  /** Recently used records. */
  private recent = new Lru<string, GraphRecord>(GRAPH_CACHE_ENTRIES);

  constructor(private readonly ctx: ServerContext) {}

  private file(id: string): string {
    return this.ctx.store.path("graphs", `${id}.json`);
  }

  private remember(r: GraphRecord): GraphRecord {
    this.recent.set(r.id, r);
    return r;
  }

  /** The stored record, or null. */
  find(id: string): GraphRecord | null {
    const hit = this.recent.get(id);
    if (hit) return hit;
    const rec = this.ctx.store.readJson(this.file(id), GraphRecordSchema, "graph");
    return rec ? this.remember(rec) : null;
  }

  load(id: string, field = "params.id"): GraphRecord {
    checkId("graph", id, field);
    const r = this.find(id);
    if (!r) throw notFound("graph", id, field);
    return r;
  }

  summary(r: GraphRecord, cached: boolean) {
    return {
      id: r.id,
      bundle: r.bundle,
      options: r.options,
      cached,
      created_at: r.created_at,
      nodes: r.graph.nodes.length,
      relations: r.graph.relations.length,
      metrics: r.diagnosis.metrics,
      timings_ms: r.timings_ms,
    };
  }

  /** POST /v1/graphs. */
  async request(body: unknown): Promise<{ created: boolean; response: ReturnType<GraphService["summary"]> }> {
    const parsed = GraphRequestSchema.safeParse(body ?? {});
    if (!parsed.success) throw fromZod(parsed.error, "body");
    const { bundle, ...rest } = parsed.data;
    const r = await this.get(bundle, rest, "body.bundle");
    return { created: r.created, response: this.summary(r.record, !r.created) };
  }

  /** The graph of `bundle` with `options`: stored, being built, or built now. */
  async get(bundle: string, options: Partial<GraphOptions>, field: string): Promise<{ record: GraphRecord; created: boolean }> {
    const dir = this.ctx.store.bundleDir(bundle, field);
    const o = GraphOptionsSchema.parse(options);
    o.instances = effectiveInstances(o.masks, o.instances); // as `esi3d graph` decides
    const id = graphIdOf(bundle, o);
    const stored = this.find(id);
    if (stored) {
      this.ctx.metrics.graphCache.inc({ outcome: "stored" });
      return { record: stored, created: false };
    }
    const running = this.inflight.get(id);
    if (running) {
      this.ctx.metrics.graphCache.inc({ outcome: "joined" });
      return { record: await running, created: true };
    }
    const p = (async () => {
      const res = (await this.ctx.cpuJob("graph", { kind: "graph", bundleDir: dir, options: o })) as GraphResult;
      if (!res.ok) throw new HttpError(res.status, res.code, res.message, res.field);
      const rec: GraphRecord = {
        format: "esi3d-served-graph/1",
        id,
        bundle,
        options: o,
        created_at: new Date().toISOString(),
        timings_ms: { graph: Math.round(res.ms) },
        graph: res.graph,
        diagnosis: res.diagnosis,
      };
      this.ctx.store.writeJson(this.file(id), rec);
      this.ctx.metrics.graphCache.inc({ outcome: "built" });
      return this.remember(rec);
    })();
    this.inflight.set(id, p);
    try {
      return { record: await p, created: true };
    } finally {
      this.inflight.delete(id);
    }
  }
}
