/**
 * Piscina worker of `esi3d serve`: the CPU-heavy stages run here, off the event loop, so /healthz and
 * uploads keep answering while graphs are built. Jobs:
 *   graph   a bundle on disk -> scene graph + diagnosis (the graph pipeline, as `esi3d graph`)
 *   finish  a session's uploaded views -> a frame bundle, decoded, checked and written atomically (writeBundle)
 *   answer  an offline reasoner (symbolic over a graph, symbolic-2d over a bundle, shortcut over the question alone)
 * Input errors come back as `{ok: false, ...}` values (a thrown error loses its class crossing threads).
 */
import { readFileSync } from "node:fs";
import { readBundle, viewFileNames, writeBundle } from "../../../core/bundle/io.js";
import { BundleError } from "../../../core/bundle/errors.js";
import { decodeViewPayload, type ViewPayload } from "../../../core/bundle/view.js";
import { BUNDLE_CONVENTIONS, BUNDLE_FORMAT, type BundleManifest } from "../../../core/bundle/schema.js";
import type { Task } from "../../../core/task/schema.js";
import { InputError } from "../../../core/errors.js";
import { graphOfBundle } from "../../../scenegraph/pipeline.js";
import { createReasoner } from "../../reason/index.js";
import { withCircular } from "../../reason/circular.js";
import type { ReasonerAnswer } from "../../reason/types.js";
import type { OfflineReasoner } from "../../reason/spec.js";
import type { SceneGraph } from "../../../scenegraph/types.js";
import type { Diagnosis } from "../../../scenegraph/diagnosisSchema.js";
import { storageFailure } from "./storage.js";
import { splitView } from "./viewCodec.js";
import type { GraphOptions } from "./schemas.js";

export interface GraphJob {
  kind: "graph";
  bundleDir: string;
  options: GraphOptions;
}
export interface FinishJob {
  kind: "finish";
  /** Stored uploads, view 0..n-1 in order. */
  viewFiles: string[];
  bundleDir: string;
  base: Pick<BundleManifest, "task_id" | "paradigm" | "simulator" | "image" | "instances" | "task">;
}
export interface AnswerJob {
  kind: "answer";
  reasoner: OfflineReasoner;
  task: Task;
  graph?: SceneGraph;
  bundleDir?: string;
  /** ask every rotation of the options (src/reason/circular.ts) */
  circular?: boolean;
}
export type ServerJob = GraphJob | FinishJob | AnswerJob;

export type JobFailure = { ok: false; status: number; code: string; message: string; field?: string };
export type GraphResult = { ok: true; graph: SceneGraph; diagnosis: Diagnosis; ms: number } | JobFailure;
export type FinishResult = { ok: true; views: number; ms: number } | JobFailure;
export type AnswerResult = { ok: true; answer: ReasonerAnswer; ms: number } | JobFailure;

export default async function work(job: ServerJob): Promise<GraphResult | FinishResult | AnswerResult> {
  const t = performance.now();
  try {
    switch (job.kind) {
      case "graph": {
        // the VGGT model is the server's (ESI3D_VGGT_MODEL), never the request's
        const r = await graphOfBundle(readBundle(job.bundleDir), { ...job.options, vggt: { ...job.options.vggt, modelPath: null } });
        // the service stores each graph with its diagnosis; a bundle of one's own (no task) has none
        if (!r.diagnosis)
          return {
            ok: false,
            status: 400,
            code: "invalid_request",
            message:
              "body.bundle: this bundle has no task record (a scene of one's own, esi3d import), so no diagnosis; build its graph with esi3d graph BUNDLE",
            field: "body.bundle",
          };
        return { ok: true, graph: r.graph, diagnosis: r.diagnosis, ms: performance.now() - t };
      }
      case "finish":
        return { ok: true, views: finishBundle(job), ms: performance.now() - t };
      case "answer": {
        const reasoner = withCircular(createReasoner(job.reasoner), job.circular === true);
        const input =
          job.reasoner === "symbolic"
            ? { task: job.task, graph: job.graph }
            : job.reasoner === "shortcut"
              ? { task: job.task }
              : { task: job.task, bundle: readBundle(job.bundleDir!) };
        const answer = await reasoner.answer(input);
        return { ok: true, answer, ms: performance.now() - t };
      }
    }
  } catch (e) {
    const failure = failureOf(e, job.kind);
    if (failure) return failure;
    throw e;
  }
}

/**
 * The failures a client can act on, as values (an error's class and errno code are lost crossing threads).
 * Messages name the field, never a server path: `field: detail` of a BundleError, not its file.
 */
function failureOf(e: unknown, kind: ServerJob["kind"]): JobFailure | null {
  if (e instanceof BundleError)
    return { ok: false, status: 400, code: kind === "finish" ? "invalid_view" : "invalid_bundle", message: `${e.field}: ${e.detail}`, field: e.field };
  if (e instanceof InputError) return { ok: false, status: 400, code: "invalid_request", message: e.message, ...(e.field ? { field: e.field } : {}) };
  const storage = storageFailure(e);
  if (storage) return { ok: false, ...storage };
  return null;
}

/** Decodes and checks every uploaded view with the bundle reader's rules, then writes the bundle atomically; returns the view count. */
function finishBundle(job: FinishJob): number {
  const known = new Set(job.base.instances.map((e) => e.id));
  const payloads: ViewPayload[] = [];
  const views: BundleManifest["views"] = [];
  job.viewFiles.forEach((file, n) => {
    const parts = splitView(readFileSync(file));
    const place = {
      index: n,
      files: { rgb: file, depth: file, instances: file },
      idsFrom: "the session's instances table (give it when opening the session or at finish)",
    };
    payloads.push(decodeViewPayload({ rgb: parts.rgb, depth: parts.depth, instances: parts.inst }, job.base.image, known, place));
    views.push({ index: n, ...viewFileNames(n), intrinsics: parts.header.intrinsics, extrinsic: parts.header.extrinsic, action: parts.header.action });
  });
  const manifest: BundleManifest = {
    format: BUNDLE_FORMAT,
    task_id: job.base.task_id,
    paradigm: job.base.paradigm,
    simulator: job.base.simulator,
    image: job.base.image,
    conventions: BUNDLE_CONVENTIONS,
    views,
    instances: job.base.instances,
    task: job.base.task,
  };
  writeBundle(job.bundleDir, manifest, payloads);
  return views.length;
}
