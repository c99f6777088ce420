/**
 * Builds, at test time, tiny ONNX models with VGGT's exact I/O contract (VGGT's source): input
 * `input_images` float32 [S,3,H,W]; outputs `pose_enc` [1,S,9], `depth` [1,S,H,W,1], `depth_conf` [1,S,H,W],
 * `world_points` [1,S,H,W,3], `world_points_conf` [1,S,H,W] and optionally `images` [1,S,3,H,W].
 * No binary is committed and nothing is downloaded: the protobuf bytes are written by the small encoder
 * below (field numbers from onnx.proto; IR version 8, opset 17).
 *
 * Every output is controllable so tests know the truth:
 * - a per-frame table (pose rows, depth maps, ...) given as an initializer [S0,...] and sliced to the
 *   input's S (frames 0..S-1 of the table), or
 * - derived from the input: depth = a·mean_c(image) + b, conf likewise, world_points = the image's
 *   channels, pose = one constant row for every frame.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

// ---------------------------------------------------------------- protobuf writer (onnx.proto)

class Pb {
  // Byte segments, joined once: tensors of a few MB must not go through per-byte arrays.
  private parts: Uint8Array[] = [];
  private len = 0;
  bytes(): Uint8Array {
    const out = new Uint8Array(this.len);
    let o = 0;
    for (const p of this.parts) {
      out.set(p, o);
      o += p.length;
    }
    return out;
  }
  private push(b: Uint8Array): void {
    this.parts.push(b);
    this.len += b.length;
  }
  private varint(v: number | bigint): void {
    let x = BigInt.asUintN(64, BigInt(v)); // negative int64 -> two's complement, 10 bytes
    const out: number[] = [];
    do {
      let b = Number(x & 0x7fn);
      x >>= 7n;
      if (x !== 0n) b |= 0x80;
      out.push(b);
    } while (x !== 0n);
    this.push(Uint8Array.from(out));
  }
  private tag(field: number, wire: number): void {
    this.varint((field << 3) | wire);
  }
  int(field: number, v: number | bigint): this {
    this.tag(field, 0);
    this.varint(v);
    return this;
  }
  raw(field: number, b: Uint8Array): this {
    this.tag(field, 2);
    this.varint(b.length);
    this.push(b);
    return this;
  }
  str(field: number, s: string): this {
    return this.raw(field, new TextEncoder().encode(s));
  }
  msg(field: number, m: Pb): this {
    return this.raw(field, m.bytes());
  }
}

const FLOAT = 1,
  INT64 = 7,
  FLOAT16 = 10; // TensorProto.DataType
type Dim = number | string;

/** Where initializer bytes go: inline (raw_data) or appended to an external-data buffer. */
interface ExternalSink {
  location: string;
  parts: Uint8Array[];
  size: number;
}

function tensor(name: string, dims: readonly number[], data: Float32Array | BigInt64Array, sink: ExternalSink | null): Pb {
  const t = new Pb();
  for (const d of dims) t.int(1, d);
  t.int(2, data instanceof Float32Array ? FLOAT : INT64);
  t.str(8, name);
  const le = new Uint8Array(data.byteLength);
  const dv = new DataView(le.buffer);
  for (let i = 0; i < data.length; i++) {
    if (data instanceof Float32Array) dv.setFloat32(i * 4, data[i]!, true);
    else dv.setBigInt64(i * 8, data[i]!, true);
  }
  if (!sink) return t.raw(9, le); // raw_data, little-endian
  // external_data entries (StringStringEntryProto key 1, value 2) and data_location = EXTERNAL (1)
  const entry = (k: string, v: string) => t.msg(13, new Pb().str(1, k).str(2, v));
  entry("location", sink.location);
  entry("offset", String(sink.size));
  entry("length", String(le.length));
  t.int(14, 1);
  sink.parts.push(le);
  sink.size += le.length;
  return t;
}

function valueInfo(name: string, elemType: number, dims: readonly Dim[] | null): Pb {
  const tt = new Pb().int(1, elemType);
  if (dims) {
    const shape = new Pb();
    for (const d of dims) shape.msg(1, typeof d === "number" ? new Pb().int(1, d) : new Pb().str(2, d));
    tt.msg(2, shape);
  }
  return new Pb().str(1, name).msg(2, new Pb().msg(1, tt));
}

type Attr = { name: string; i?: number; ints?: number[] };
function node(op: string, inputs: string[], outputs: string[], attrs: Attr[] = []): Pb {
  const n = new Pb();
  for (const i of inputs) n.str(1, i);
  for (const o of outputs) n.str(2, o);
  n.str(3, `${op}_${outputs[0]}`);
  n.str(4, op);
  for (const a of attrs) {
    const p = new Pb().str(1, a.name);
    if (a.ints) {
      for (const v of a.ints) p.int(8, v);
      p.int(20, 7); // INTS
    } else {
      p.int(3, a.i!);
      p.int(20, 2); // INT
    }
    n.msg(5, p);
  }
  return n;
}

// ---------------------------------------------------------------- the fake VGGT

/** An output either derived from the input image (`{ a, b }`: a·mean_c + b) or a per-frame table [S0,...]. */
type TinyMap = { a: number; b: number } | Float32Array;

export interface TinyVggtSpec {
  /** "fixed518": input [num_images,3,518,518] like the public export (pad mode); "dynamic": [S,3,H,W] (crop mode). */
  shape: "fixed518" | "dynamic";
  /** Frames in the per-frame tables (S0); inputs must have S ≤ S0 when a table is used. */
  frames?: number;
  /** Model resolution of per-frame tables (needed only when a map is a table). */
  height?: number;
  width?: number;
  /** Pose rows [S0*9], or one row [9] used for every frame (default: identity pose, fx = W, fy = H). */
  poseEnc?: Float32Array | number[];
  /** Depth [S0*H*W] or {a,b}. Default {a: 1, b: 1} (depth = mean + 1). */
  depth?: TinyMap;
  depthConf?: TinyMap;
  /** [S0*H*W*3], or "input" (the image's RGB as xyz). */
  worldPoints?: Float32Array | "input";
  worldPointsConf?: TinyMap;
  includeImages?: boolean;
  /** Emit outputs as float16 (a Cast at the end), like an fp16 export. */
  float16?: boolean;
  /** Rename I/O to build broken models. */
  inputName?: string;
  outputNames?: Partial<Record<"pose_enc" | "depth" | "depth_conf" | "world_points" | "world_points_conf" | "images", string>>;
  /** Leave out these outputs. */
  omit?: string[];
  /** pose_enc row of frame s = a ⊙ image[s, 0, 0, 0..8] + b: the first 9 pixels of row 0 (channel 0) encode each view's pose. */
  poseFromImage?: { a: number[]; b: number[] };
  /**
   * Depth, world points and the pose translation times m = a·image[0, 0, 0, pixel] + b: every run gets its
   * own scale, set by its FIRST frame, as each VGGT run has its own arbitrary scale.
   */
  runScale?: { pixel: number; a: number; b: number };
  /** Declare these shapes for inputs/outputs (by their contract name) instead of the true ones, to build wrong-shape models. */
  declaredDims?: Partial<Record<"input_images" | "pose_enc" | "depth" | "depth_conf" | "world_points" | "world_points_conf" | "images", Dim[]>>;
  /** Keep the initializers in an external-data file of this name (like vggt.onnx_data), after `deadBytes` unused bytes. */
  externalData?: { location: string; deadBytes?: number };
}

interface TinyVggtFiles {
  graph: Uint8Array;
  /** The external-data file's bytes when spec.externalData is set. */
  data: Uint8Array | null;
}

/** 2·atan(0.5): the FOV for which VGGT's decoding gives f = size (f = size / (2 tan(FOV / 2))). */
export const FOV_F_EQUALS_SIZE = 2 * Math.atan(0.5);

function buildTinyVggt(spec: TinyVggtSpec): TinyVggtFiles {
  const dead = spec.externalData?.deadBytes ?? 0;
  const sink: ExternalSink | null = spec.externalData ? { location: spec.externalData.location, parts: [new Uint8Array(dead)], size: dead } : null;
  const nodes: Pb[] = [];
  const inits: Pb[] = [];
  const IN = spec.inputName ?? "input_images";
  let uid = 0;
  const name = (p: string) => `${p}_${uid++}`;
  const f32 = (dims: number[], data: ArrayLike<number>) => {
    const n = name("c");
    inits.push(tensor(n, dims, Float32Array.from(data), sink));
    return n;
  };
  const i64 = (data: number[]) => {
    const n = name("i");
    inits.push(tensor(n, [data.length], BigInt64Array.from(data.map(BigInt)), sink));
    return n;
  };
  const op = (type: string, inputs: string[], attrs: Attr[] = []) => {
    const out = name(type.toLowerCase());
    nodes.push(node(type, inputs, [out], attrs));
    return out;
  };
  const S0 = spec.frames ?? 0,
    H = spec.height ?? 0,
    W = spec.width ?? 0;
  // S of the input as a 1-element int64 tensor, for slicing tables to the frames given.
  let sVecName: string | null = null;
  const sVec = () =>
    (sVecName ??= op(
      "Shape",
      [IN],
      [
        { name: "start", i: 0 },
        { name: "end", i: 1 },
      ],
    ));
  let zeroI: string | null = null;
  const table = (data: Float32Array, inner: number[]) => {
    zeroI ??= i64([0]);
    if (data.length !== S0 * inner.reduce((p, q) => p * q, 1)) throw new Error(`tiny-vggt: table has ${data.length} values, expected ${S0}x${inner.join("x")}`);
    return op("Slice", [f32([S0, ...inner], data), zeroI, sVec(), zeroI]);
  };
  const mean = op(
    "ReduceMean",
    [IN],
    [
      { name: "axes", ints: [1] },
      { name: "keepdims", i: 0 },
    ],
  ); // [S,H,W]
  const map = (m: TinyMap) => (m instanceof Float32Array ? table(m, [H, W]) : op("Add", [op("Mul", [mean, f32([], [m.a])]), f32([], [m.b])]));

  const outs: { key: string; value: string; dims: Dim[] }[] = [];
  const Sd = spec.shape === "fixed518" ? "num_images" : "S";
  const Hd: Dim = spec.shape === "fixed518" ? 518 : "H",
    Wd: Dim = spec.shape === "fixed518" ? 518 : "W";

  // The run's scale from its first frame: [1].
  const m = spec.runScale
    ? op("Add", [
        op("Mul", [
          op("Reshape", [op("Slice", [IN, i64([0, 0, 0, spec.runScale.pixel]), i64([1, 1, 1, spec.runScale.pixel + 1]), i64([0, 1, 2, 3])]), i64([1])]),
          f32([], [spec.runScale.a]),
        ]),
        f32([], [spec.runScale.b]),
      ])
    : null;
  const scaled = (x: string) => (m ? op("Mul", [x, m]) : x);

  // pose_enc [1,S,9]
  let pose: string;
  const pe = spec.poseEnc ? Float32Array.from(spec.poseEnc) : null;
  if (spec.poseFromImage) {
    const px = op("Reshape", [op("Slice", [IN, i64([0, 0, 0]), i64([1, 1, 9]), i64([1, 2, 3])]), i64([-1, 9])]); // [S,9]
    pose = op("Add", [op("Mul", [px, f32([9], spec.poseFromImage.a)]), f32([9], spec.poseFromImage.b)]);
  } else if (pe && pe.length !== 9) pose = table(pe, [9]);
  else {
    const row = pe ?? [0, 0, 0, 0, 0, 0, 1, FOV_F_EQUALS_SIZE, FOV_F_EQUALS_SIZE];
    // [S,1] zeros (from the input, so S follows it) times zeros[1,9], plus the row.
    const perFrame = op(
      "ReduceMean",
      [IN],
      [
        { name: "axes", ints: [1, 2, 3] },
        { name: "keepdims", i: 0 },
      ],
    );
    const col = op("Unsqueeze", [perFrame, i64([1])]);
    pose = op("Add", [op("MatMul", [col, f32([1, 9], new Array(9).fill(0))]), f32([9], row)]);
  }
  // Scale the translation only: [m, m, m, 1, ..., 1].
  if (m) pose = op("Mul", [pose, op("Concat", [m, m, m, f32([6], [1, 1, 1, 1, 1, 1])], [{ name: "axis", i: 0 }])]);
  outs.push({ key: "pose_enc", value: op("Unsqueeze", [pose, i64([0])]), dims: [1, Sd, 9] });
  outs.push({ key: "depth", value: op("Unsqueeze", [scaled(map(spec.depth ?? { a: 1, b: 1 })), i64([0, -1])]), dims: [1, Sd, Hd, Wd, 1] });
  outs.push({ key: "depth_conf", value: op("Unsqueeze", [map(spec.depthConf ?? { a: 1, b: 1 }), i64([0])]), dims: [1, Sd, Hd, Wd] });
  const wp = spec.worldPoints ?? "input";
  const wpv = wp === "input" ? op("Transpose", [IN], [{ name: "perm", ints: [0, 2, 3, 1] }]) : table(wp, [H, W, 3]);
  outs.push({ key: "world_points", value: op("Unsqueeze", [scaled(wpv), i64([0])]), dims: [1, Sd, Hd, Wd, 3] });
  outs.push({ key: "world_points_conf", value: op("Unsqueeze", [map(spec.worldPointsConf ?? { a: 1, b: 1 }), i64([0])]), dims: [1, Sd, Hd, Wd] });
  if (spec.includeImages) outs.push({ key: "images", value: op("Unsqueeze", [IN, i64([0])]), dims: [1, Sd, 3, Hd, Wd] });

  const graph = new Pb();
  const outputs: Pb[] = [];
  const elem = spec.float16 ? FLOAT16 : FLOAT;
  for (const o of outs) {
    if (spec.omit?.includes(o.key)) continue;
    const outName = spec.outputNames?.[o.key as keyof NonNullable<TinyVggtSpec["outputNames"]>] ?? o.key;
    nodes.push(spec.float16 ? node("Cast", [o.value], [outName], [{ name: "to", i: FLOAT16 }]) : node("Identity", [o.value], [outName]));
    outputs.push(valueInfo(outName, elem, spec.declaredDims?.[o.key as keyof NonNullable<TinyVggtSpec["declaredDims"]>] ?? o.dims));
  }
  for (const n of nodes) graph.msg(1, n);
  graph.str(2, "tiny_vggt");
  for (const t of inits) graph.msg(5, t);
  graph.msg(11, valueInfo(IN, FLOAT, spec.declaredDims?.input_images ?? [Sd, 3, Hd, Wd]));
  for (const o of outputs) graph.msg(12, o);
  const model = new Pb()
    .int(1, 8) // IR version 8
    .str(2, "esi3d-tiny-vggt")
    .msg(7, graph)
    .msg(8, new Pb().str(1, "").int(2, 17)) // opset 17
    .bytes();
  return { graph: model, data: sink ? Buffer.concat(sink.parts) : null };
}

/** Writes the model to a fresh temp directory; returns the .onnx path. */
export function writeTinyVggt(spec: TinyVggtSpec, fileName = "tiny-vggt.onnx"): string {
  const dir = mkdtempSync(join(tmpdir(), "esi3d-tiny-vggt-"));
  const p = join(dir, fileName);
  const files = buildTinyVggt(spec);
  writeFileSync(p, files.graph);
  if (files.data) writeFileSync(join(dir, spec.externalData!.location), files.data);
  return p;
}
