/**
 * The VGGT ONNX model: finding the file, one cached ONNX Runtime session per process (CUDA when asked for
 * and loadable, else CPU), and checking the model's inputs and outputs against VGGT's contract
 * (VGGT's source).
 */
import { existsSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import * as ort from "onnxruntime-node";
import { InputError } from "../../core/errors.js";
import { OnnxFormatError, readOnnxGraph, type OnnxGraphInfo } from "./onnxGraph.js";
import { VGGT_PATCH_SIZE, VGGT_TARGET_SIZE, type PreprocessMode } from "./preprocess.js";

/** Environment variable naming the model file when no path is given. */
const VGGT_MODEL_ENV = "ESI3D_VGGT_MODEL";
/** File names tried, in order, when the model path is a directory (akretz/VGGT-1B-onnx's names, then ours). */
const VGGT_MODEL_FILE_NAMES = ["vggt.onnx", "vggt_fp16.onnx", "model.onnx"];

export const VGGT_INPUT = "input_images";
const VGGT_OUTPUTS = ["pose_enc", "depth", "depth_conf", "world_points", "world_points_conf"] as const;
/** VGGT's I/O as esi3d expects it, in words (VGGT's source): quoted by every model error. */
const VGGT_CONTRACT_TEXT =
  `input "${VGGT_INPUT}" float32 [S,3,H,W] (518x518 for pad mode, or 518 wide for crop mode); outputs "pose_enc" [1,S,9], "depth" [1,S,H,W,1], ` +
  `"depth_conf" [1,S,H,W], "world_points" [1,S,H,W,3], "world_points_conf" [1,S,H,W] (float32 or float16), optionally "images" [1,S,3,H,W]`;

const HOW_TO_GET =
  "Expected: VGGT-1B exported to ONNX — a .onnx graph (e.g. vggt.onnx) with its external weights (vggt.onnx_data) " +
  "in the same directory, such as akretz/VGGT-1B-onnx from Hugging Face or the output of models/export_vggt.py. " +
  `Pass --vggt-model /path/to/vggt.onnx (the option vggt.modelPath in a --config file or a service request), or set ${VGGT_MODEL_ENV}; see models/README.md. ` +
  `The graph must have VGGT's inputs and outputs: ${VGGT_CONTRACT_TEXT}.`;

/** The VGGT model is missing or is not a VGGT model. A user-fixable input error (the CLI prints the message). */
export class VggtModelError extends InputError {
  constructor(message: string) {
    super(message);
    this.name = "VggtModelError";
  }
}

/** Bytes each external-data file must have: the end of the last tensor the graph reads from it. */
function externalExtents(graph: OnnxGraphInfo): Map<string, { end: number; live: number | null }> {
  const out = new Map<string, { end: number; live: number | null }>();
  for (const e of graph.external) {
    const cur = out.get(e.location) ?? { end: 0, live: 0 };
    cur.end = Math.max(cur.end, e.offset + (e.length ?? 0));
    cur.live = cur.live === null || e.length === null ? null : cur.live + e.length;
    out.set(e.location, cur);
  }
  return out;
}

export interface ResolveVggtModelOptions {
  modelPath?: string;
  /** Defaults to process.env. */
  env?: Record<string, string | undefined>;
}

/**
 * The absolute path of the VGGT model to load: `modelPath`, else $ESI3D_VGGT_MODEL. A directory is searched
 * for VGGT_MODEL_FILE_NAMES. Before any work, and without loading the weights, it checks that the graph is a
 * complete ONNX file, that every external-data file it refers to is there and long enough, and that the
 * graph's inputs and outputs are VGGT's (checkVggtContract). Throws VggtModelError naming the file and the
 * expected inputs and outputs otherwise.
 */
export function resolveVggtModel(opts: ResolveVggtModelOptions = {}): string {
  const env = opts.env ?? process.env;
  const given = opts.modelPath ?? env[VGGT_MODEL_ENV];
  const from = opts.modelPath !== undefined ? "the model path given" : `$${VGGT_MODEL_ENV}`;
  if (given === undefined || given.trim() === "") throw new VggtModelError(`No VGGT model given (neither a model path nor $${VGGT_MODEL_ENV}). ${HOW_TO_GET}`);
  let p = resolve(given);
  if (!existsSync(p)) throw new VggtModelError(`VGGT model not found: ${p} (from ${from}). ${HOW_TO_GET}`);
  if (statSync(p).isDirectory()) {
    const hit = VGGT_MODEL_FILE_NAMES.map((n) => join(p, n)).find((f) => existsSync(f));
    if (!hit) throw new VggtModelError(`VGGT model directory ${p} (from ${from}) holds none of ${VGGT_MODEL_FILE_NAMES.join(", ")}. ${HOW_TO_GET}`);
    p = hit;
  }
  let graph: OnnxGraphInfo;
  try {
    graph = readOnnxGraph(p);
  } catch (e) {
    if (!(e instanceof OnnxFormatError)) throw e;
    throw new VggtModelError(`VGGT model ${p} is not a complete ONNX file: ${e.message}. ${HOW_TO_GET}`);
  }
  for (const [rel, need] of externalExtents(graph)) {
    const ext = resolve(dirname(p), rel);
    if (!existsSync(ext))
      throw new VggtModelError(
        `VGGT model ${p} keeps its weights in ${rel}, which is missing (expected at ${ext}). Download both files into the same directory; see models/README.md.`,
      );
    const size = statSync(ext).size;
    if (size < need.end)
      throw new VggtModelError(
        `VGGT model ${p}: its weights file ${ext} has ${size} bytes, but the graph reads up to byte ${need.end} (truncated? re-download or re-export both files). ${HOW_TO_GET}`,
      );
  }
  checkVggtContract(p, graph.inputs, graph.outputs);
  return p;
}

/**
 * Bytes of weights on disk that a session loads: the graph plus the bytes its tensors occupy in the
 * external-data files. Dead bytes in a data file (e.g. appended by a re-save) are not counted.
 */
export function modelBytesOnDisk(modelPath: string): number {
  let n = statSync(modelPath).size;
  for (const [rel, need] of externalExtents(readOnnxGraph(modelPath))) {
    const f = resolve(dirname(modelPath), rel);
    if (!existsSync(f)) continue;
    n += need.live ?? statSync(f).size;
  }
  return n;
}

// ---------------------------------------------------------------- contract

export type VggtOutputName = (typeof VGGT_OUTPUTS)[number];
/** Trailing (channel) size and accepted ranks (with / without the batch axis) of each output (VGGT's source). */
const OUTPUT_SHAPES: Record<VggtOutputName, { last: number | null; ranks: number[] }> = {
  pose_enc: { last: 9, ranks: [3, 2] },
  depth: { last: 1, ranks: [5, 4] },
  depth_conf: { last: null, ranks: [4, 3] },
  world_points: { last: 3, ranks: [5, 4] },
  world_points_conf: { last: null, ranks: [4, 3] },
};

interface ModelContract {
  /** Fixed frame count (dim 0) or null when dynamic. */
  frames: number | null;
  /** Fixed input height / width or null when dynamic. */
  height: number | null;
  width: number | null;
  /** Preprocessing the input shape implies: fixed 518×518 → pad (the public export); dynamic H/W → crop. */
  mode: PreprocessMode;
  outputTypes: Record<VggtOutputName, "float32" | "float16">;
}

type Meta = { name: string; isTensor?: boolean; type?: string; shape?: readonly (number | string)[] };

function describe(m: readonly Meta[]): string {
  return m.length === 0 ? "(none)" : m.map((x) => `"${x.name}"${x.type ? ` ${x.type}` : ""}${x.shape ? ` [${x.shape.join(",")}]` : ""}`).join(", ");
}

/** Checks a session's I/O metadata against VGGT's contract; throws VggtModelError naming expected and found. */
function checkVggtContract(modelPath: string, inputs: readonly Meta[], outputs: readonly Meta[]): ModelContract {
  const fail = (what: string) =>
    new VggtModelError(
      `${modelPath} does not look like a VGGT model: ${what}. Expected ${VGGT_CONTRACT_TEXT}; found inputs ${describe(inputs)} and outputs ${describe(outputs)}. See models/README.md.`,
    );
  const inp = inputs.find((m) => m.name === VGGT_INPUT);
  if (!inp) throw fail(`no input named "${VGGT_INPUT}"`);
  const extraIn = inputs.filter((m) => m.name !== VGGT_INPUT);
  if (extraIn.length) throw fail(`unexpected extra input(s) ${extraIn.map((m) => `"${m.name}"`).join(", ")} (this code feeds only "${VGGT_INPUT}")`);
  if (inp.type && inp.type !== "float32") throw fail(`"${VGGT_INPUT}" is ${inp.type}, not float32`);
  const shape = inp.shape ?? ["S", 3, "H", "W"];
  if (shape.length !== 4) throw fail(`"${VGGT_INPUT}" has rank ${shape.length}, not 4 ([S,3,H,W])`);
  if (typeof shape[1] === "number" && shape[1] !== 3) throw fail(`"${VGGT_INPUT}" has ${shape[1]} channels, not 3`);
  const num = (d: number | string | undefined) => (typeof d === "number" && d > 0 ? d : null);
  const frames = num(shape[0]),
    height = num(shape[2]),
    width = num(shape[3]);
  for (const [d, n] of [
    [height, "height"],
    [width, "width"],
  ] as const)
    if (d !== null && d % VGGT_PATCH_SIZE !== 0) throw fail(`input ${n} ${d} is not a multiple of the patch size ${VGGT_PATCH_SIZE}`);
  let mode: PreprocessMode;
  if (height === VGGT_TARGET_SIZE && width === VGGT_TARGET_SIZE) mode = "pad";
  else if (height === null || width === null) mode = "crop";
  else if (width === VGGT_TARGET_SIZE && height < VGGT_TARGET_SIZE)
    mode = "crop"; // an export traced at one crop size
  else throw fail(`fixed input size ${width}x${height} is neither 518x518 (pad mode) nor 518 wide (crop mode)`);

  const types = {} as Record<VggtOutputName, "float32" | "float16">;
  const missing = VGGT_OUTPUTS.filter((o) => !outputs.some((m) => m.name === o));
  if (missing.length) throw fail(`missing output(s) ${missing.map((o) => `"${o}"`).join(", ")}`);
  for (const name of VGGT_OUTPUTS) {
    const m = outputs.find((x) => x.name === name)!;
    const t = m.type ?? "float32";
    if (t !== "float32" && t !== "float16") throw fail(`output "${name}" is ${t}, not float32 or float16`);
    types[name] = t;
    const spec = OUTPUT_SHAPES[name];
    if (m.shape) {
      if (!spec.ranks.includes(m.shape.length)) throw fail(`output "${name}" has rank ${m.shape.length}, expected ${spec.ranks.join(" or ")}`);
      const last = m.shape[m.shape.length - 1];
      if (spec.last !== null && typeof last === "number" && last !== spec.last) throw fail(`output "${name}" ends in ${last}, expected ${spec.last}`);
    }
  }
  return { frames, height, width, mode, outputTypes: types };
}

// ---------------------------------------------------------------- session (one per process)

export type VggtDevice = "auto" | "cuda" | "cpu";
type VggtProvider = "cuda" | "cpu";

export interface VggtSession {
  session: ort.InferenceSession;
  modelPath: string;
  provider: VggtProvider;
  contract: ModelContract;
  /** Session creation time (ms) when it was created by this request; 0 when reused from the cache. */
  loadMs: number;
  reused: boolean;
}

let cached: { key: string; value: Promise<Omit<VggtSession, "reused" | "loadMs"> & { loadMs: number }> } | null = null;
/** Why CUDA could not be used, once learnt: later sessions go straight to CPU and say nothing more. */
let cudaFailure: string | null = null;

/** Linux x64 with an NVIDIA driver loaded: CUDA might work (ORT's CUDA provider is Linux x64 only, ONNX Runtime's documentation). */
function cudaMightBeAvailable(): boolean {
  return process.platform === "linux" && process.arch === "x64" && (existsSync("/dev/nvidiactl") || existsSync("/proc/driver/nvidia/version"));
}

async function createSession(modelPath: string, device: VggtDevice, log: (m: string) => void) {
  const t0 = performance.now();
  const base: ort.InferenceSession.SessionOptions = { graphOptimizationLevel: "all" };
  const tryCuda = cudaFailure === null && (device === "cuda" || (device === "auto" && cudaMightBeAvailable()));
  let session: ort.InferenceSession | null = null;
  let provider: VggtProvider = "cpu";
  if (tryCuda) {
    try {
      // CUDA first; ORT places nodes CUDA cannot run on the listed CPU provider.
      session = await ort.InferenceSession.create(modelPath, { ...base, logSeverityLevel: 4, executionProviders: [{ name: "cuda", deviceId: 0 }, "cpu"] });
      provider = "cuda";
    } catch (e) {
      cudaFailure = String((e as Error).message ?? e).split("\n")[0]!;
      log(
        `vggt: CUDA execution provider unavailable (${cudaFailure}); falling back to CPU. See models/README.md to install ONNX Runtime's CUDA 12 provider libraries.`,
      );
    }
  }
  if (!session) {
    try {
      // Loaded by path so external weights (vggt.onnx_data) resolve next to the graph (the akretz/vggt-onnx export).
      session = await ort.InferenceSession.create(modelPath, { ...base, executionProviders: ["cpu"] });
    } catch (e) {
      throw new VggtModelError(`Could not load the VGGT model ${modelPath}: ${String((e as Error).message ?? e).split("\n")[0]}. ${HOW_TO_GET}`);
    }
  }
  let contract: ModelContract;
  try {
    contract = checkVggtContract(modelPath, session.inputMetadata as readonly Meta[], session.outputMetadata as readonly Meta[]);
  } catch (e) {
    await session.release();
    throw e;
  }
  return { session, modelPath, provider, contract, loadMs: performance.now() - t0 };
}

/**
 * The process's VGGT session for this model and device, created on first use and cached (a request for a
 * different model or device releases the old one: one session per process).
 */
export async function getVggtSession(modelPath: string, device: VggtDevice, log: (m: string) => void): Promise<VggtSession> {
  const key = `${device}\0${modelPath}`;
  if (cached && cached.key === key) {
    const v = await cached.value;
    return { ...v, loadMs: 0, reused: true };
  }
  await releaseVggtSession();
  const value = createSession(modelPath, device, log);
  cached = { key, value };
  try {
    return { ...(await value), reused: false };
  } catch (e) {
    if (cached?.value === value) cached = null;
    throw e;
  }
}

/** Releases the cached session (if any). */
async function releaseVggtSession(): Promise<void> {
  const c = cached;
  cached = null;
  if (!c) return;
  try {
    await (await c.value).session.release();
  } catch {
    // creation failed: nothing to release
  }
}

/**
 * Forgets the session and any learnt CUDA failure.
 * @internal Only tests call it: a process keeps one VGGT session for its life, and tests need a fresh one.
 */
export async function resetVggtRuntime(): Promise<void> {
  await releaseVggtSession();
  cudaFailure = null;
}
