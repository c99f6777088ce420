/**
 * Proxies of ESI-Bench's Specular Reflection records (the sample's 9: 3 per subcategory) draw the record's mirror: the
 * built-in renderer's initial view, at ESI's camera pose and field of view, must show what the record's evidence says
 * the question's image shows in the mirror. Rendered by the real renderer; nothing here is a copy of the answer.
 */
import { describe, expect, it } from "vitest";
import { importRecords } from "../../../bridge/esibench/importer.js";
import { proxyTask } from "../../../bridge/esibench/proxy.js";
import { renderBundle } from "../../../bridge/sim/capture.js";
import { mirrorPlane } from "../../../core/objects/mirror.js";
import { intrinsicsFromHfov, projectPoint } from "../../../core/math/camera.js";
import type { Task } from "../../../core/task/schema.js";
import type { Mat34 } from "../../../core/math/vec.js";
import { PATHS, SAMPLE, sampleCopy, sampleRecord, writeRecord } from "./esibenchHelpers.js";
import { join } from "node:path";

/**
 * Pixels of an object's id that count as "shows" (ours): at 1280x720 a 15 cm box 3 m away covers ~1000 pixels; 50
 * keeps a few stray edge pixels from counting.
 */
const SHOWS_MIN_PIXELS = 50;

type Json = Record<string, unknown>;
const res = importRecords(SAMPLE);
const mirrorRecords = res.imported.filter((x) => x.record.raw.big_task === "Specular Reflection");

interface Rendered {
  task: Task;
  /** The record's placement entries, in the order the importer gives them ids (16, 17, ...). */
  placement: Json[];
  evidence: Json;
  mirror: Json;
  /** The initial view's camera-from-world extrinsic. */
  extrinsic: Mat34;
  /** Pixels of the id seen directly, and in the mirror. */
  direct: (name: string) => number;
  reflected: (name: string) => number;
}

function render(id: string): Rendered {
  const x = mirrorRecords.find((r) => r.record.raw.id === id)!;
  const p = proxyTask(x.task!);
  if ("skip" in p) throw new Error(p.skip);
  const qd = x.record.metadata.question_data as Json;
  const placement = qd.placement as Json[];
  const bundle = renderBundle(p.task, "single");
  const view = bundle.views[0]!;
  const idOf = (name: string) => 16 + placement.findIndex((pl) => pl.name === name);
  const count = (img: Uint16Array | undefined, name: string) => {
    const id = idOf(name);
    let n = 0;
    for (const v of img ?? []) if (v === id) n++;
    return n;
  };
  return {
    task: p.task,
    placement,
    evidence: qd.evidence as Json,
    mirror: (qd.scene_setup as Json).mirror as Json,
    extrinsic: bundle.manifest.views[0]!.extrinsic,
    direct: (name) => count(view.ids, name),
    reflected: (name) => count(view.reflectedIds, name),
  };
}

const ids = (small: string) => mirrorRecords.filter((x) => x.record.raw.small_task === small).map((x) => x.record.raw.id);

describe("proxies of ESI-Bench mirror records", () => {
  it("the sample holds 3 records of each Specular Reflection subcategory, and each becomes a proxy task", () => {
    expect(ids("Reflection Authoring")).toHaveLength(3);
    expect(ids("Spatial Relations")).toHaveLength(3);
    expect(ids("Correspondence")).toHaveLength(3);
    for (const x of mirrorRecords) expect(proxyTask(x.task!)).toHaveProperty("task");
  });

  it("place ESI's mirror: the reflective face through the recorded position, facing normal_xy, width 2 half_width_m, a frame behind", () => {
    for (const x of mirrorRecords) {
      const r = render(x.record.raw.id);
      const mirrors = r.task.objects.filter((o) => o.category === "mirror");
      expect(mirrors).toHaveLength(1);
      const plane = mirrorPlane(mirrors[0]!);
      const m = r.mirror as { position: number[]; normal_xy: number[]; tangent_xy: number[]; half_width_m: number };
      for (let k = 0; k < 3; k++) expect(plane.centre[k]).toBeCloseTo(m.position[k]!, 6);
      expect(plane.normal[0]).toBeCloseTo(m.normal_xy[0]!, 6);
      expect(plane.normal[1]).toBeCloseTo(m.normal_xy[1]!, 6);
      expect(plane.u[0]).toBeCloseTo(m.tangent_xy[0]!, 6);
      expect(plane.u[1]).toBeCloseTo(m.tangent_xy[1]!, 6);
      expect(plane.half_width_m).toBeCloseTo(m.half_width_m, 6);
      // centred at the recorded height, the framed mirror standing on the floor (camera_poses.height_m below the camera)
      expect(plane.centre[2] - plane.half_height_m - 0.1).toBeCloseTo(r.task.room.floor_z!, 6);
      expect(r.task.objects.filter((o) => o.category === "mirror_frame")).toHaveLength(1);
      // the imported task keeps ESI's placement (its base link, on the plane) for a simulator that loads ESI's model
      expect(x.task!.objects.find((o) => o.category === "mirror")).toMatchObject({ position: m.position, position_frame: "base_link" });
      // ESI's mirror runner renders at camera_poses.fov_deg (100 or 70 deg), not its viewer camera's 63.29 deg
      expect(r.task.camera.hfov_deg).toBe((x.record.metadata.camera_poses as Json).fov_deg);
    }
  });

  it("Reflection Authoring: the queried object shows in the mirror exactly when the evidence says it is visible in the mirror", () => {
    for (const id of ids("Reflection Authoring")) {
      const r = render(id);
      const name = r.evidence.queried_object_name as string;
      expect(r.reflected(name) >= SHOWS_MIN_PIXELS, `${id} ${name} in the mirror`).toBe(r.evidence.visible_in_mirror);
      if (r.evidence.visible_directly === true) expect(r.direct(name), `${id} ${name} directly`).toBeGreaterThanOrEqual(SHOWS_MIN_PIXELS);
      else {
        // the object's centre projects outside the image, as ESI's evidence has it; its stand-in box (our 15 cm
        // footprint) may still reach into the image's edge (records 3010 and 3013: a 25-pixel strip at the right edge)
        const o = r.task.objects[r.placement.findIndex((pl) => pl.name === name)]!;
        const { width, height, hfov_deg } = r.task.camera;
        const { u, v, z } = projectPoint(r.extrinsic, intrinsicsFromHfov(width, height, hfov_deg), o.position);
        expect(z > 0 && u >= 0 && u < width && v >= 0 && v < height, `${id} ${name}'s centre in the image`).toBe(false);
      }
    }
  });

  it("Correspondence: the record's target shows in the mirror, more than either other object", () => {
    for (const id of ids("Correspondence")) {
      const r = render(id);
      const target = r.evidence.real_object_name as string;
      expect(r.reflected(target), `${id} ${target}`).toBeGreaterThanOrEqual(SHOWS_MIN_PIXELS);
      for (const pl of r.placement) if (pl.name !== target) expect(r.reflected(pl.name as string)).toBeLessThan(r.reflected(target));
    }
  });

  it("Spatial Relations: both objects the question names show in the mirror", () => {
    for (const id of ids("Spatial Relations")) {
      const r = render(id);
      for (const name of [r.evidence.real_a_name, r.evidence.real_b_name] as string[])
        expect(r.reflected(name), `${id} ${name}`).toBeGreaterThanOrEqual(SHOWS_MIN_PIXELS);
    }
  });

  it("refuses a record whose mirror normal_xy is not its quaternion's +x axis, naming the field", () => {
    const dir = sampleCopy();
    const rec = sampleRecord(PATHS.mirrorRelations);
    const md = JSON.parse(rec.metadata_json!);
    const m = md.question_data.scene_setup.mirror;
    m.normal_xy = [-m.normal_xy[0], -m.normal_xy[1]];
    writeRecord(dir, PATHS.mirrorRelations, { ...rec, metadata_json: JSON.stringify(md) });
    const r = importRecords(join(dir, PATHS.mirrorRelations));
    expect(r.imported).toHaveLength(0);
    expect(r.refused[0]).toMatchObject({ field: "metadata_json.question_data.scene_setup.mirror.normal_xy" });
    expect(r.refused[0]!.reason).toMatch(/quaternion's \+x axis/);
  });
});
