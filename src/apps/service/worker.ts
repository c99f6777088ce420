/**
 * Piscina worker of `esi3d serve`: the CPU-heavy stages run here, off the event loop, so /healthz and
 * uploads keep answering while graphs are built. Jobs:
 *   graph   a bundle on disk -> scene graph + diagnosis (the graph pipeline, as `esi3d graph`)
 *   finish  a session's uploaded views -> a frame bundle, decoded, checked and written atomically (writeBundle)
 *   answer  an offline reasoner (symbolic over a graph, symbolic-2d over a bundle)
 * Input errors come back as `{ok: false, ...}` values (a thrown error loses its class crossing threads).
 */
import { readFileSync } from "node:fs";
import zlib from "node:zlib";
import { float32FromLE, readBundle, viewFileNames, writeBundle, type ViewPayload } from "../../../bridge/bundle/io.js";
import { decodePng, PngError, rgbOf } from "../../../bridge/bundle/png.js";
import { BUNDLE_CONVENTIONS, BUNDLE_FORMAT, type BundleManifest } from "../../../bridge/bundle/schema.js";
import type { Task } from "../../../bridge/task/schema.js";
import { InputError } from "../../core/errors.js";
import { BundleError } from "../../../bridge/bundle/io.js";
import { graphOfBundle } from "../../../scenegraph/pipeline.js";
import { createReasoner } from "../../reason/index.js";
import type { ReasonerAnswer } from "../../reason/types.js";
import type { SceneGraph } from "../../../scenegraph/types.js";
import type { Diagnosis } from "../../../scenegraph/diagnosisSchema.js";
import { splitView, type PngHeader, pngHeader } from "./view-codec.js";
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
  reasoner: "symbolic" | "symbolic-2d";
  task: Task;
  graph?: SceneGraph;
  bundleDir?: string;
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
        const r = await graphOfBundle(readBundle(job.bundleDir), job.options);
        return { ok: true, graph: r.graph, diagnosis: r.diagnosis!, ms: performance.now() - t };
      }
      case "finish":
        return { ...finishBundle(job), ms: performance.now() - t } as FinishResult;
      case "answer": {
        const reasoner = createReasoner(job.reasoner);
        const input = job.reasoner === "symbolic" ? { task: job.task, graph: job.graph } : { task: job.task, bundle: readBundle(job.bundleDir!) };
        const answer = await reasoner.answer(input);
        return { ok: true, answer, ms: performance.now() - t };
      }
    }
  } catch (e) {
    if (e instanceof BundleError) return { ok: false, status: 400, code: "invalid_bundle", message: e.message, field: e.field };
    if (e instanceof InputError) return { ok: false, status: 400, code: "invalid_request", message: e.message };
    throw e;
  }
}

class ViewError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(`${field}: ${message}`);
  }
}

/**
 * Largest inflated size accepted for a PNG of this header: the filtered scanlines plus slack. Checked
 * before decoding so that a tiny compressed upload cannot inflate to gigabytes (a "zip bomb").
 */
function maxInflated(h: PngHeader): number {
  const channels: Record<number, number> = { 0: 1, 2: 3, 4: 2, 6: 4 };
  return (h.width * (channels[h.colorType] ?? 4) * (h.bitDepth / 8) + 1) * h.height + 1024;
}

function checkInflateBound(png: Buffer, field: string): void {
  const h = pngHeader(png);
  if (!h) throw new ViewError(field, "not a PNG file");
  const idat: Buffer[] = [];
  let off = 8;
  while (off + 8 <= png.length) {
    const len = png.readUInt32BE(off);
    const type = png.toString("ascii", off + 4, off + 8);
    if (off + 12 + len > png.length) throw new ViewError(field, `truncated PNG: chunk ${type} needs ${len} bytes`);
    if (type === "IDAT") idat.push(png.subarray(off + 8, off + 8 + len));
    if (type === "IEND") break;
    off += 12 + len;
  }
  try {
    zlib.inflateSync(Buffer.concat(idat), { maxOutputLength: maxInflated(h) });
  } catch (e) {
    const tooBig = (e as { code?: string }).code === "ERR_BUFFER_TOO_LARGE" || e instanceof RangeError;
    throw new ViewError(field, tooBig ? `image data inflates to more than ${maxInflated(h)} bytes (the size of a ${h.width}x${h.height} image)` : `corrupt PNG image data: ${(e as Error).message}`);
  }
}

function decode(png: Buffer, field: string) {
  checkInflateBound(png, field);
  try {
    return decodePng(png);
  } catch (e) {
    if (e instanceof PngError) throw new ViewError(field, e.message);
    throw e;
  }
}

function finishBundle(job: FinishJob): { ok: true; views: number } | JobFailure {
  const { width: W, height: H } = job.base.image;
  const known = new Set(job.base.instances.map((e) => e.id));
  const payloads: ViewPayload[] = [];
  const views: BundleManifest["views"] = [];
  try {
    job.viewFiles.forEach((file, n) => {
      const parts = splitView(readFileSync(file));
      const rgbPng = decode(parts.rgb, `views.${n}.rgb`);
      if (rgbPng.width !== W || rgbPng.height !== H || rgbPng.bitDepth !== 8 || rgbPng.channels < 3)
        throw new ViewError(`views.${n}.rgb`, `expected an 8-bit RGB(A) ${W}x${H} PNG, found ${rgbPng.channels} channel(s) at ${rgbPng.bitDepth} bits, ${rgbPng.width}x${rgbPng.height}`);
      const rgb = rgbOf(rgbPng.data as Uint8Array, rgbPng.channels, W * H);
      const depth = float32FromLE(Buffer.from(parts.depth));
      const instPng = decode(parts.inst, `views.${n}.instances`);
      if (instPng.width !== W || instPng.height !== H || instPng.channels !== 1) throw new ViewError(`views.${n}.instances`, `expected a ${W}x${H} greyscale PNG`);
      const ids = instPng.bitDepth === 16 ? (instPng.data as Uint16Array) : Uint16Array.from(instPng.data);
      for (let p = 0; p < ids.length; p++) {
        const id = ids[p]!;
        if (id !== 0 && !known.has(id))
          throw new ViewError(`views.${n}.instances`, `pixel (${p % W}, ${Math.floor(p / W)}) has id ${id}, which is not in the session's instances table (give it when opening the session or at finish)`);
      }
      payloads.push({ rgb, depth, ids });
      views.push({ index: n, ...viewFileNames(n), intrinsics: parts.header.intrinsics, extrinsic: parts.header.extrinsic, action: parts.header.action });
    });
  } catch (e) {
    if (e instanceof ViewError) return { ok: false, status: 400, code: "invalid_view", message: e.message, field: e.field };
    throw e;
  }
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
  return { ok: true, views: views.length };
}
