/**
 * Exports of an inspected variant for other tools (the formats 3D users exchange: PLY and glTF):
 *  - PLY: the full cloud (not the displayed sample), binary little-endian with uchar colours set to each
 *    point's node colour (points in no node grey), and each point's node in the `node` property (-1 = none);
 *  - GLB: one scene, set as the default (glTF `scene`), holding the full cloud as a POINTS primitive (POSITION + normalized uchar COLOR_0, coloured by node), every
 *    predicted box as a LINES primitive coloured by status and every true box likewise (missed ones in
 *    magenta), each a named glTF node with its id, label and status in `extras`. glTF is +Y up and ours is
 *    Z up: every position is converted explicitly by (x, y, z) -> (x, z, -y), a rotation of -90° about X
 *    (right-handed stays right-handed);
 *  - graph JSON: the stored {graph, diagnosis}, as the run wrote it.
 */
import { Document, NodeIO, type GLTF, type Node as GltfNode } from "@gltf-transform/core";
import { writePly, type PlyExtras } from "../../../reconstruct/ply.js";
import { pointNodes } from "../../../scenegraph/export.js";
import type { YawBox } from "../../../core/geometry.js";
import type { VariantData } from "./variant.js";
import { MISSED_COLOR, nodeColor, statusColor, TRUTH_COLOR, UNASSIGNED_COLOR } from "./palette.js";
import { taskInfo } from "./variant.js";
import { boxEdges } from "./geometry.js";
import { writeFileAtomic, writeJsonAtomic } from "../../../core/fs.js";

/** Per-point node colours (r, g, b), grey for points in no node. */
function nodeColors(count: number, members: readonly Uint32Array[]): Uint8Array {
  const rgb = new Uint8Array(count * 3);
  for (let i = 0; i < count; i++) rgb.set(UNASSIGNED_COLOR, 3 * i);
  members.forEach((m, k) => {
    const c = nodeColor(k);
    for (const i of m) rgb.set(c, 3 * i);
  });
  return rgb;
}

/** The PLY of a variant: node colours and the `node` property. */
export function plyExtras(d: Pick<VariantData, "cloud" | "graph" | "members">): PlyExtras {
  return { colors: nodeColors(d.cloud.count, d.members), nodes: pointNodes(d.cloud.count, d.graph, d.members) };
}

export function exportPly(d: VariantData, file: string): void {
  writePly(d.cloud, file, plyExtras(d));
}

export function exportGraphJson(d: VariantData, file: string): void {
  writeJsonAtomic(file, { graph: d.graph, diagnosis: d.diagnosis });
}

/** Z-up world -> glTF Y-up: (x, y, z) -> (x, z, -y). */
function zUpToYUp(x: number, y: number, z: number): [number, number, number] {
  return [x, z, -y];
}

/** glTF 2.0's mesh.primitive.mode codes (the library types its own `Primitive.Mode` table as a loose record). */
const GLTF_POINTS: GLTF.MeshPrimitiveMode = 0;
const GLTF_LINES: GLTF.MeshPrimitiveMode = 1;

export async function encodeGlb(d: VariantData): Promise<Uint8Array> {
  const doc = new Document();
  doc.getRoot().getAsset().generator = "esi3d inspect";
  const buffer = doc.createBuffer();
  const scene = doc.createScene(`${d.task.task_id} ${d.paradigm}/${d.source}`);
  const material = doc.createMaterial("vertex colours").setBaseColorFactor([1, 1, 1, 1]).setMetallicFactor(0).setRoughnessFactor(1);
  const primitive = (mode: GLTF.MeshPrimitiveMode, positions: number[] | Float32Array, colors: Uint8Array) => {
    const n = positions.length / 3;
    const pos = new Float32Array(n * 3);
    for (let i = 0; i < n; i++) pos.set(zUpToYUp(positions[3 * i]!, positions[3 * i + 1]!, positions[3 * i + 2]!), 3 * i);
    return doc
      .createPrimitive()
      .setMode(mode)
      .setAttribute("POSITION", doc.createAccessor().setType("VEC3").setArray(pos).setBuffer(buffer))
      .setAttribute("COLOR_0", doc.createAccessor().setType("VEC3").setArray(colors).setNormalized(true).setBuffer(buffer))
      .setMaterial(material);
  };
  const frame = { frame: "glTF +Y up, metres; converted from esi3d's Z-up world by (x, y, z) -> (x, z, -y)" };
  // the cloud, coloured by node
  const cloudNode: GltfNode = doc
    .createNode("cloud")
    .setMesh(doc.createMesh("cloud").addPrimitive(primitive(GLTF_POINTS, d.cloud.xyz.subarray(0, d.cloud.count * 3), nodeColors(d.cloud.count, d.members))))
    .setExtras({
      points: d.cloud.count,
      source: d.source,
      paradigm: d.paradigm,
      colours: "by node (palette of src/apps/viewer/palette.ts), grey = in no node",
      ...frame,
    });
  scene.addChild(cloudNode);
  const lines = (name: string, box: YawBox, rgb: [number, number, number], extras: Record<string, unknown>) => {
    const edges = boxEdges(box.centre, box.extent, box.yaw);
    const colors = new Uint8Array(edges.length);
    for (let i = 0; i < edges.length / 3; i++) colors.set(rgb, 3 * i);
    return doc
      .createNode(name)
      .setMesh(doc.createMesh(name).addPrimitive(primitive(GLTF_LINES, edges, colors)))
      .setExtras(extras);
  };
  const predicted = doc
    .createNode("predicted boxes")
    .setExtras({ colours: "by status: matched green, duplicate orange, merged purple, hallucinated red, stale brown" });
  const status = new Map((d.diagnosis?.nodes ?? []).map((n) => [n.node, n]));
  for (const n of d.graph.nodes) {
    const dn = status.get(n.id);
    predicted.addChild(
      lines(`${n.id} ${n.label} (${dn?.status ?? "?"})`, n.box, statusColor(dn?.status ?? ""), {
        id: n.id,
        label: n.label,
        status: dn?.status ?? null,
        object: dn?.object_name ?? null,
        twin: dn?.twin ?? null,
        points: n.raw_point_count,
      }),
    );
  }
  scene.addChild(predicted);
  const truth = doc.createNode("true boxes").setExtras({ colours: "recovered grey, missed magenta" });
  const objStatus = new Map((d.diagnosis?.objects ?? []).map((o) => [o.id, o]));
  for (const o of taskInfo(d.task).objects) {
    const st = objStatus.get(o.id)?.status ?? "missed-unseen";
    truth.addChild(
      lines(`o${o.id} ${o.name} (${st})`, { centre: o.centre, extent: o.extent, yaw: o.yaw }, st === "matched" ? TRUTH_COLOR : MISSED_COLOR, {
        id: o.id,
        name: o.name,
        category: o.category,
        status: st,
        node: objStatus.get(o.id)?.node ?? null,
      }),
    );
  }
  scene.addChild(truth);
  // glTF's `scene`: without it a loader may show nothing (the spec leaves the choice to the viewer)
  doc.getRoot().setDefaultScene(scene);
  doc.getRoot().setExtras({ esi3d: { task_id: d.task.task_id, paradigm: d.paradigm, source: d.source, ...frame } });
  return new NodeIO().writeBinary(doc);
}

export async function exportGlb(d: VariantData, file: string): Promise<void> {
  writeFileAtomic(file, await encodeGlb(d));
}
