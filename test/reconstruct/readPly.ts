/**
 * Reads back a binary little-endian PLY point cloud (reconstruct/ply.ts writes them; this also takes any
 * with x, y, z and optional colours): the tests' check of what the writer and the CLI's --ply produce.
 */
import { readFileSync } from "node:fs";
import { InputError } from "../../core/errors.js";
import { allocateCloud, type PointCloud } from "../../reconstruct/pointcloud.js";

interface Prop {
  name: string;
  type: string;
}

const TYPE_SIZE: Record<string, number> = {
  char: 1,
  uchar: 1,
  int8: 1,
  uint8: 1,
  short: 2,
  ushort: 2,
  int16: 2,
  uint16: 2,
  int: 4,
  uint: 4,
  int32: 4,
  uint32: 4,
  float: 4,
  float32: 4,
  double: 8,
  float64: 8,
};

function readers(buf: Buffer): Record<string, (o: number) => number> {
  return {
    char: (o) => buf.readInt8(o),
    int8: (o) => buf.readInt8(o),
    uchar: (o) => buf[o]!,
    uint8: (o) => buf[o]!,
    short: (o) => buf.readInt16LE(o),
    int16: (o) => buf.readInt16LE(o),
    ushort: (o) => buf.readUInt16LE(o),
    uint16: (o) => buf.readUInt16LE(o),
    int: (o) => buf.readInt32LE(o),
    int32: (o) => buf.readInt32LE(o),
    uint: (o) => buf.readUInt32LE(o),
    uint32: (o) => buf.readUInt32LE(o),
    float: (o) => buf.readFloatLE(o),
    float32: (o) => buf.readFloatLE(o),
    double: (o) => buf.readDoubleLE(o),
    float64: (o) => buf.readDoubleLE(o),
  };
}

/** Reads a binary little-endian PLY point cloud (ours, or any with x, y, z and optional colours). */
export function readPly(file: string): PointCloud {
  const buf = readFileSync(file);
  const end = buf.indexOf("end_header\n");
  if (buf.subarray(0, 4).toString("ascii") !== "ply\n" || end < 0) throw new InputError(`${file}: not a PLY file (no "ply" magic or "end_header")`);
  const lines = buf.subarray(0, end).toString("ascii").split("\n");
  if (!lines.includes("format binary_little_endian 1.0")) throw new InputError(`${file}: format: only "binary_little_endian 1.0" PLY is supported`);
  let count = -1;
  let inVertex = false;
  const props: Prop[] = [];
  const categories = new Map<number, string>();
  let width = 0,
    height = 0;
  let source: PointCloud["source"] = "gt";
  for (const l of lines) {
    const w = l.trim().split(/\s+/);
    if (w[0] === "element") {
      inVertex = w[1] === "vertex";
      if (inVertex) count = Number(w[2]);
      else if (count >= 0 && props.length) break; // only the vertex element is read
    } else if (w[0] === "property" && inVertex) {
      if (w[1] === "list") throw new InputError(`${file}: property ${w[4]}: list properties in the vertex element are not supported`);
      if (!(w[1]! in TYPE_SIZE)) throw new InputError(`${file}: property ${w[2]}: unknown type ${w[1]}`);
      props.push({ type: w[1]!, name: w[2]! });
    } else if (w[0] === "comment" && w[1] === "esi3d-category") categories.set(Number(w[2]), w.slice(3).join(" "));
    else if (w[0] === "comment" && w[1] === "esi3d-image") [width, height] = [Number(w[2]), Number(w[3])];
    else if (w[0] === "comment" && w[1] === "esi3d-source") source = w[2] as PointCloud["source"];
  }
  if (!(count >= 0)) throw new InputError(`${file}: element vertex: missing`);
  for (const need of ["x", "y", "z"])
    if (!props.some((p) => p.name === need)) throw new InputError(`${file}: property ${need}: missing from the vertex element`);
  const stride = props.reduce((s, p) => s + TYPE_SIZE[p.type]!, 0);
  const bodyStart = end + "end_header\n".length;
  if (buf.length < bodyStart + count * stride)
    throw new InputError(`${file}: truncated: ${count} vertices need ${count * stride} bytes, found ${buf.length - bodyStart}`);
  const c = allocateCloud(count, { categories, imageWidth: width, imageHeight: height, source, meta: {} });
  const rd = readers(buf);
  const offsets = new Map<string, [number, (o: number) => number]>();
  let off = 0;
  for (const p of props) {
    offsets.set(p.name, [off, rd[p.type]!]);
    off += TYPE_SIZE[p.type]!;
  }
  const get = (name: string) => offsets.get(name);
  const fields: Array<[string, (i: number, v: number) => void]> = [
    ["x", (i, v) => (c.xyz[3 * i] = v)],
    ["y", (i, v) => (c.xyz[3 * i + 1] = v)],
    ["z", (i, v) => (c.xyz[3 * i + 2] = v)],
    ["red", (i, v) => (c.rgb[3 * i] = v)],
    ["green", (i, v) => (c.rgb[3 * i + 1] = v)],
    ["blue", (i, v) => (c.rgb[3 * i + 2] = v)],
    ["confidence", (i, v) => (c.confidence[i] = v)],
    ["view", (i, v) => (c.view[i] = v)],
    ["pixel", (i, v) => (c.pixel[i] = v)],
    ["instance", (i, v) => (c.instance[i] = v)],
  ];
  if (!get("confidence")) c.confidence.fill(1);
  for (const [name, set] of fields) {
    const f = get(name);
    if (!f) continue;
    const [o, read] = f;
    for (let i = 0; i < count; i++) set(i, read(bodyStart + i * stride + o));
  }
  return c;
}
