/**
 * PLY export of point clouds: binary little endian with uchar colours (Open3D's reader divides
 * colours by 255 whatever their type, so float colours would load almost black), plus esi3d's
 * per-point fields as extra properties (CloudCompare shows them as scalar fields; Open3D's tensor reader
 * `o3d.t.io.read_point_cloud` keeps them as attributes). The integer fields are signed 32-bit `int`:
 * Open3D 0.16's tensor reader skips `ushort`/`uint` properties ("unsupported datatype"), and every value
 * fits (views and instance ids are 16-bit, pixel indices are below 2^31, checked).
 * With a scene graph, a `node` field gives each point's predicted node (the index k of node n<k>, -1 for
 * points in no node), and `comment esi3d-node k id label` lines name the nodes.
 * Metadata that later stages need (image size, id -> category table, source) travels in comments.
 */
import { writeFileAtomic } from "../core/fs.js";
import type { PointCloud } from "./pointcloud.js";
import { InputError } from "../core/errors.js";

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

/** Per-vertex properties we write, in order. */
const PROPS: Prop[] = [
  { name: "x", type: "float" },
  { name: "y", type: "float" },
  { name: "z", type: "float" },
  { name: "red", type: "uchar" },
  { name: "green", type: "uchar" },
  { name: "blue", type: "uchar" },
  { name: "confidence", type: "float" },
  { name: "view", type: "int" },
  { name: "pixel", type: "int" },
  { name: "instance", type: "int" },
];
const NODE_PROP: Prop = { name: "node", type: "int" };
const INT32_MAX = 2 ** 31 - 1;

/** Each point's predicted node (index into the graph's nodes, -1 = none), and the nodes' ids and labels. */
export interface PlyNodes {
  ofPoint: Int32Array;
  nodes: ReadonlyArray<{ id: string; label: string }>;
}

export interface PlyExtras {
  /** r, g, b per point, replacing the cloud's (e.g. node colours). */
  colors?: Uint8Array;
  /** Adds the `node` property. */
  nodes?: PlyNodes;
}

export function encodePly(c: PointCloud, extras: PlyExtras = {}): Buffer {
  const { colors, nodes } = extras;
  if (nodes && nodes.ofPoint.length !== c.count) throw new Error(`encodePly: ${nodes.ofPoint.length} node ids for ${c.count} points`);
  // the largest pixel index is below width * height; int32 holds it for any image under 46340 x 46340
  if (c.imageWidth * c.imageHeight > INT32_MAX)
    throw new InputError(`PLY: pixel indices of a ${c.imageWidth}x${c.imageHeight} image do not fit the signed 32-bit "pixel" property`);
  const props = nodes ? [...PROPS, NODE_PROP] : PROPS;
  const stride = props.reduce((s, p) => s + TYPE_SIZE[p.type]!, 0);
  const head = [
    "ply",
    "format binary_little_endian 1.0",
    "comment esi3d point cloud (world frame: Z up, metres)",
    `comment esi3d-source ${c.source}`,
    `comment esi3d-image ${c.imageWidth} ${c.imageHeight}`,
    ...[...c.categories.entries()].sort((a, b) => a[0] - b[0]).map(([id, name]) => `comment esi3d-category ${id} ${name}`),
    ...(nodes
      ? ["comment esi3d-node-field: index k of graph node n<k>, -1 = in no node", ...nodes.nodes.map((n, k) => `comment esi3d-node ${k} ${n.id} ${n.label}`)]
      : []),
    `element vertex ${c.count}`,
    ...props.map((p) => `property ${p.type} ${p.name}`),
    "end_header",
    "",
  ].join("\n");
  const header = Buffer.from(head, "ascii");
  const body = Buffer.alloc(c.count * stride);
  const rgb = colors ?? c.rgb;
  for (let i = 0, o = 0; i < c.count; i++, o += stride) {
    body.writeFloatLE(c.xyz[3 * i]!, o);
    body.writeFloatLE(c.xyz[3 * i + 1]!, o + 4);
    body.writeFloatLE(c.xyz[3 * i + 2]!, o + 8);
    body[o + 12] = rgb[3 * i]!;
    body[o + 13] = rgb[3 * i + 1]!;
    body[o + 14] = rgb[3 * i + 2]!;
    body.writeFloatLE(c.confidence[i]!, o + 15);
    body.writeInt32LE(c.view[i]!, o + 19);
    body.writeInt32LE(c.pixel[i]!, o + 23);
    body.writeInt32LE(c.instance[i]!, o + 27);
    if (nodes) body.writeInt32LE(nodes.ofPoint[i]!, o + 31);
  }
  return Buffer.concat([header, body]);
}

/** Writes a PLY atomically (temporary name, then rename). */
export function writePly(c: PointCloud, file: string, extras: PlyExtras = {}): void {
  writeFileAtomic(file, encodePly(c, extras));
}

/** Raw little-endian float32 x,y,z triples: the input format of the Open3D peers (bench/peers). */
export function writeXyzF32(c: PointCloud, file: string): void {
  writeFileAtomic(file, Buffer.from(c.xyz.buffer, c.xyz.byteOffset, c.count * 12));
}
