/**
 * One variant of a task (paradigm × source): the point cloud and node memberships, recomputed, plus the
 * stored graph, diagnosis and records, packed for the page.
 *
 * A run stores graphs and diagnoses, not clouds: the cloud and each node's points are recomputed from the
 * task and the run's config exactly as src/eval/pipeline.ts `runUnit` builds them (renderBundle →
 * the graph pipeline with the arm's options). Every step is seeded, so this reproduces the
 * run's graph; `reproduceRunGraph` checks that it does, node by node, and refuses to show points under a
 * graph they do not belong to (a run made by another esi3d version, or an edited graph file).
 */
import { worldAtLastPhase } from "../../../core/task/phases.js";
import { deflateSync } from "node:zlib";
import { stageTimer } from "../../../core/stageTimer.js";
import type { Task } from "../../../core/task/schema.js";
import type { FrameBundle } from "../../../core/bundle/io.js";
import type { Paradigm } from "../../../core/bundle/schema.js";
import { encodePng } from "../../../core/bundle/png.js";
import { objectBox } from "../../../core/objects/geometry.js";
import { boundsOf } from "../../../core/geometry.js";
import { InputError } from "../../../core/errors.js";
import type { PointCloud } from "../../../reconstruct/pointcloud.js";
import type { Diagnosis } from "../../../scenegraph/diagnosisSchema.js";
import type { ObjectMove } from "../../../scenegraph/diagnosis.js";
import type { SceneGraph } from "../../../scenegraph/types.js";
import { threeDArms } from "../../eval/config.js";
import { armPipeline } from "../../eval/pipeline.js";
import { renderBundle } from "../../../bridge/sim/capture.js";
import type { ItemRecord } from "../../eval/records.js";
import { buildPrompt, promptRecord } from "../../prompt/templates.js";
import type { GraphFormat } from "../../prompt/formats.js";
import { displaySample } from "./downsample.js";
import { explainDiagnosis } from "./explain.js";
import type { RunDir } from "./run.js";
import type { StoredGraph } from "../../eval/files.js";
import type { CloudPayload, EpisodePayload, PromptPayload, TaskInfo, TrueObjectPayload, Variant, ViewPayload } from "./types.js";

/** Thumbnails are 1/2 of the view size (259×196 for 518×392): enough to see an object, ~60 kB per view as PNG. */
const THUMB_SCALE = 2;
/** zlib level of the page's packed arrays: 6 (zlib's default); 9 saves ~2 % more and takes twice as long. */
const PAGE_ZLIB_LEVEL = 6;
/** Largest uint16 position code (positions are quantised to 16 bits per axis inside the cloud's bounds). */
const U16_MAX = 65535;

/** The graph could not be reproduced from the run's task and config. */
export class ReproductionError extends InputError {}

export interface Reproduced {
  bundle: FrameBundle;
  cloud: PointCloud;
  graph: SceneGraph;
  members: Uint32Array[];
  timings_ms: Record<string, number>;
}

/** The first difference between a stored graph and a recomputed one, in words, or null when they agree. */
export function graphDifference(stored: SceneGraph, fresh: SceneGraph): string | null {
  if (stored.nodes.length !== fresh.nodes.length) return `${stored.nodes.length} stored nodes, ${fresh.nodes.length} recomputed`;
  for (let k = 0; k < stored.nodes.length; k++) {
    const a = stored.nodes[k]!,
      b = fresh.nodes[k]!;
    if (a.id !== b.id || a.label !== b.label) return `node ${k}: stored ${a.id} (${a.label}), recomputed ${b.id} (${b.label})`;
    if (a.raw_point_count !== b.raw_point_count) return `node ${a.id}: stored ${a.raw_point_count} points, recomputed ${b.raw_point_count}`;
    const boxA = JSON.stringify(a.box),
      boxB = JSON.stringify(b.box);
    if (boxA !== boxB) return `node ${a.id}: stored box ${boxA}, recomputed ${boxB}`;
    if (JSON.stringify(a) !== JSON.stringify(b)) return `node ${a.id}: evidence differs (views, support or flags)`;
  }
  if (stored.relations.length !== fresh.relations.length) return `${stored.relations.length} stored relations, ${fresh.relations.length} recomputed`;
  if (JSON.stringify(stored.relations) !== JSON.stringify(fresh.relations)) return "relations differ";
  return null;
}

/** Recomputes the cloud and memberships behind a stored run graph, exactly as runUnit did, and checks them. */
export async function reproduceRunGraph(
  run: RunDir,
  task: Task,
  paradigm: string,
  source: string,
  stored: StoredGraph,
  file: string,
  esi3dVersion: string,
  bundle?: FrameBundle,
): Promise<Reproduced> {
  const config = run.config;
  const arm = threeDArms(config).find((a) => a.label === source);
  if (!arm)
    throw new InputError(
      `--source ${source}: this run has no such source (sources: ${threeDArms(config)
        .map((a) => a.label)
        .join(", ")})`,
    );
  const { timings, lap } = stageTimer(0);
  const b = bundle ?? renderBundle(task, paradigm as Paradigm);
  lap("render");
  // the same cloud and graph as src/eval/pipeline.ts runUnit builds
  const g = await armPipeline(b, config, arm, { diagnose: false });
  Object.assign(timings, g.timings_ms);
  const cloud = g.cloud;
  const diff = graphDifference(stored.graph, g.graph);
  if (diff !== null)
    throw new ReproductionError(
      `${file}: the graph recomputed from the task and the run's config differs from the stored one (${diff}), so its points cannot be shown. ` +
        (run.version === esi3dVersion
          ? `The run was made by esi3d ${run.version}, as is this one, so the graph-building code has changed since (a newer checkout, or local edits) or the file was edited. `
          : `The run was made by esi3d ${run.version}; this is esi3d ${esi3dVersion}. `) +
        "Inspect it with the esi3d that made it, or run it again.",
    );
  return { bundle: b, cloud, graph: g.graph, members: g.members, timings_ms: timings };
}

/** Little-endian bytes of a typed array, base64 (every platform Node and browsers run on is little-endian; checked). */
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
function packed(a: Uint8Array | Uint16Array): string {
  if (!LITTLE_ENDIAN) throw new Error("inspect: big-endian hosts are not supported");
  return deflateSync(Buffer.from(a.buffer, a.byteOffset, a.byteLength), { level: PAGE_ZLIB_LEVEL }).toString("base64");
}

/** 1 + node index per cloud point (0 = in no node). */
function nodeOfPoints(count: number, members: readonly Uint32Array[]): Uint16Array {
  const nodeOf = new Uint16Array(count);
  members.forEach((m, k) => {
    for (const i of m) nodeOf[i] = Math.min(k + 1, U16_MAX);
  });
  return nodeOf;
}

function cloudPayload(cloud: PointCloud, nodeOf: Uint16Array): CloudPayload {
  const { indices, info } = displaySample(cloud.xyz, nodeOf);
  const n = indices.length;
  const { min, max } = boundsOf(cloud.xyz, indices);
  let cmin = Infinity,
    cmax = -Infinity;
  for (const i of indices) {
    const c = cloud.confidence[i]!;
    if (c < cmin) cmin = c;
    if (c > cmax) cmax = c;
  }
  if (n === 0) {
    min.fill(0);
    max.fill(0);
    cmin = cmax = 1;
  }
  const planes = new Uint8Array(6 * n),
    rgb = new Uint8Array(3 * n),
    conf = new Uint8Array(n),
    view = new Uint16Array(n),
    node = new Uint16Array(n);
  const scale = [0, 1, 2].map((a) => (max[a]! > min[a]! ? U16_MAX / (max[a]! - min[a]!) : 0));
  const cscale = cmax > cmin ? 255 / (cmax - cmin) : 0;
  const prev = [0, 0, 0];
  for (let k = 0; k < n; k++) {
    const i = indices[k]!;
    for (let a = 0; a < 3; a++) {
      const q = Math.round((cloud.xyz[3 * i + a]! - min[a]!) * scale[a]!);
      const d = (q - prev[a]! + 65536) & 0xffff;
      prev[a] = q;
      planes[a * n + k] = d & 255;
      planes[(3 + a) * n + k] = d >>> 8;
      rgb[3 * k + a] = cloud.rgb[3 * i + a]!;
    }
    conf[k] = Math.round((cloud.confidence[i]! - cmin) * cscale);
    view[k] = cloud.view[i]!;
    node[k] = nodeOf[i]!;
  }
  return {
    count: n,
    bounds: { min, max },
    xyz: packed(planes),
    rgb: packed(rgb),
    confidence: packed(conf),
    conf_min: cmin,
    conf_max: cmax,
    view: packed(view),
    node: packed(node),
    downsample: info,
  };
}

/** A view's image at 1/THUMB_SCALE (box-averaged), as a PNG data URL. */
function thumbnail(rgb: Uint8Array, w: number, h: number): { url: string; tw: number; th: number } {
  const tw = Math.floor(w / THUMB_SCALE),
    th = Math.floor(h / THUMB_SCALE);
  const out = new Uint8Array(tw * th * 3);
  const s2 = THUMB_SCALE * THUMB_SCALE;
  for (let y = 0; y < th; y++)
    for (let x = 0; x < tw; x++)
      for (let c = 0; c < 3; c++) {
        let sum = 0;
        for (let dy = 0; dy < THUMB_SCALE; dy++)
          for (let dx = 0; dx < THUMB_SCALE; dx++) sum += rgb[((y * THUMB_SCALE + dy) * w + x * THUMB_SCALE + dx) * 3 + c]!;
        out[(y * tw + x) * 3 + c] = Math.round(sum / s2);
      }
  return { url: `data:image/png;base64,${encodePng(tw, th, 3, 8, out).toString("base64")}`, tw, th };
}

/** No points (the 2D arm of an active run builds no cloud). */
function emptyCloudPayload(): CloudPayload {
  const none = packed(new Uint8Array(0));
  return {
    count: 0,
    bounds: { min: [0, 0, 0], max: [0, 0, 0] },
    xyz: none,
    rgb: none,
    confidence: none,
    conf_min: 1,
    conf_max: 1,
    view: none,
    node: none,
    downsample: { total: 0, shown: 0, method: "all", voxel_m: null, budget: 0 },
  };
}

function viewPayloads(
  bundle: FrameBundle,
  cloud: Pick<PointCloud, "imageWidth" | "imageHeight" | "view" | "pixel">,
  members: readonly Uint32Array[],
): ViewPayload[] {
  const views = bundle.views.map((v) => {
    const t = thumbnail(v.rgb, v.width, v.height);
    return { v, t, labels: new Uint16Array(t.tw * t.th) };
  });
  // which node's points came from each thumbnail pixel (cloud pixels are at the cloud's image size)
  const W = cloud.imageWidth || bundle.views[0]?.width || 1,
    H = cloud.imageHeight || bundle.views[0]?.height || 1;
  members.forEach((m, k) => {
    for (const i of m) {
      const view = views[cloud.view[i]!];
      if (!view) continue;
      const p = cloud.pixel[i]!;
      const x = Math.floor(((p % W) * view.t.tw) / W),
        y = Math.floor((Math.floor(p / W) * view.t.th) / H);
      view.labels[y * view.t.tw + x] = Math.min(k + 1, U16_MAX);
    }
  });
  return views.map(({ v, t, labels }) => ({
    index: v.index,
    width: v.width,
    height: v.height,
    K: { fx: v.K.fx, fy: v.K.fy, cx: v.K.cx, cy: v.K.cy },
    E: v.E.map((row) => [...row]),
    action: v.action,
    thumb: t.url,
    thumb_width: t.tw,
    thumb_height: t.th,
    labels: deflateSync(Buffer.from(labels.buffer, labels.byteOffset, labels.byteLength)).toString("base64"),
  }));
}

export function taskInfo(task: Task): TaskInfo {
  // the true boxes as the diagnosis judges them: a changing world's last phase
  const objects: TrueObjectPayload[] = worldAtLastPhase(task).objects.map((o) => {
    const b = objectBox(o);
    return {
      id: o.id,
      name: o.name,
      category: o.category,
      role: o.role,
      centre: [...b.centre] as [number, number, number],
      extent: [...b.extent] as [number, number, number],
      yaw: b.yaw,
    };
  });
  return {
    task_id: task.task_id,
    subcategory: task.subcategory,
    question: task.question,
    options: task.options,
    answer: task.answer,
    answer_format: task.answer_format,
    room: { size: [task.room.size[0], task.room.size[1]] },
    objects,
  };
}

/** The prompt to show: the record's own, rebuilt for an LLM run, or what an LLM would get for a symbolic one. */
export function promptFor(
  task: Task,
  graph: SceneGraph,
  record: ItemRecord | null,
  reasoner: string,
  format: GraphFormat,
  uncertainty: boolean,
): PromptPayload {
  const own = (record as (ItemRecord & { prompt?: unknown }) | null)?.prompt;
  if (typeof own === "string" && own.length) return { origin: "record", text: own, note: "the exact prompt, as the record stores it" };
  let text: string | null = null;
  try {
    text = promptRecord(buildPrompt({ task, graph, uncertainty }, { format }));
  } catch (e) {
    text = null;
    return { origin: "rebuilt", text, note: `the prompt could not be rebuilt: ${(e as Error).message}` };
  }
  if (reasoner === "symbolic")
    return {
      origin: "hypothetical",
      text,
      note: `the symbolic reasoner reads the graph directly and sends no prompt; its program trace is the reply. Shown: what an LLM would be sent (format ${format}${uncertainty ? ", uncertainty on" : ""})`,
    };
  return {
    origin: "rebuilt",
    text,
    note: `rebuilt from the stored graph with the run's format (${format}${uncertainty ? ", uncertainty on" : ""}); the record keeps its hash${record?.prompt_hash ? ` ${record.prompt_hash.slice(0, 12)}…` : ""}`,
  };
}

/** Everything behind one variant, full resolution (exports use this; the page gets buildVariant's packing). */
export interface VariantData {
  paradigm: string;
  source: string;
  task: Task;
  bundle: FrameBundle;
  cloud: PointCloud;
  graph: SceneGraph;
  members: Uint32Array[];
  /** null for a bundle without a task record (nothing to diagnose against) */
  diagnosis: Diagnosis | null;
  /** Objects an active episode moved (the replay's), as the diagnosis was told: its stale nodes are explained against them. */
  moved?: readonly ObjectMove[];
  timings_ms: Record<string, number>;
}

/** What the page's packing of a variant needs besides its data: the records and the prompt shown. */
export interface VariantInput extends VariantData {
  record3d: ItemRecord | null;
  record2d: ItemRecord | null;
  prompt: PromptPayload;
  /** paradigm active: the episode to step through. */
  episode?: EpisodePayload | null;
}

export function buildVariant(v: VariantInput): Variant {
  const t0 = performance.now();
  const nodeOf = nodeOfPoints(v.cloud.count, v.members);
  const cloud = cloudPayload(v.cloud, nodeOf);
  const t1 = performance.now();
  const views = viewPayloads(v.bundle, v.cloud, v.members);
  const t2 = performance.now();
  return {
    key: `${v.paradigm}__${v.source}`,
    paradigm: v.paradigm,
    source: v.source,
    arm: "3d",
    episode: v.episode ?? null,
    graph: v.graph,
    diagnosis: v.diagnosis,
    // a bundle without a task has no diagnosis, so no status to explain
    explanations: v.diagnosis ? explainDiagnosis({ ...v, diagnosis: v.diagnosis }) : null,
    record3d: v.record3d,
    record2d: v.record2d,
    prompt: v.prompt,
    cloud,
    views,
    thumb_scale: THUMB_SCALE,
    timings_ms: { ...v.timings_ms, display_cloud: Math.round(t1 - t0), thumbnails: Math.round(t2 - t1) },
  };
}

/** The 2D arm of an active run: no graph and no cloud, only its episode's views (frustums, thumbnails) and steps. */
export function buildEpisodeOnlyVariant(v: {
  key: string;
  paradigm: string;
  source: string;
  bundle: FrameBundle;
  record: ItemRecord;
  episode: EpisodePayload;
  timings_ms: Record<string, number>;
}): Variant {
  const t0 = performance.now();
  const views = viewPayloads(
    v.bundle,
    { imageWidth: v.bundle.views[0]?.width ?? 1, imageHeight: v.bundle.views[0]?.height ?? 1, view: new Uint16Array(0), pixel: new Uint32Array(0) },
    [],
  );
  return {
    key: v.key,
    paradigm: v.paradigm,
    source: v.source,
    arm: "2d",
    episode: v.episode,
    graph: null,
    diagnosis: null,
    explanations: null,
    record3d: null,
    record2d: v.record,
    prompt: { origin: "record", text: null, note: "the 2D arm sends views, not a graph prompt; its replies are in the record" },
    cloud: emptyCloudPayload(),
    views,
    thumb_scale: THUMB_SCALE,
    timings_ms: { ...v.timings_ms, thumbnails: Math.round(performance.now() - t0) },
  };
}
