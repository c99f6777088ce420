/**
 * bridge/esibench: the 87 released sample records import into task records that validate against
 * TaskRecordSchema; subcategories are keyed on (big_task, small_task); view numbers and flags come from
 * names and _indices, not list positions; malformed records are refused naming the file and the field,
 * without stopping the others.
 */
import { describe, expect, it } from "vitest";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { importRecords } from "../../../bridge/esibench/importer.js";
import { usdCameraAngles } from "../../../bridge/esibench/views.js";
import { TaskRecordSchema, TaskSchema, unresolvedFields } from "../../../core/task/schema.js";
import { SUBCATEGORIES } from "../../../core/task/taxonomy.js";
import { JSON_CLEAN, PATHS, SAMPLE, sampleCopy, sampleRecord, writeRecord } from "./esibenchHelpers.js";

const res = importRecords(SAMPLE);
const byId = (id: string) => res.imported.find((x) => x.record.raw.id === id)!;

describe("ESI-Bench import (the 87 sample records)", () => {
  it("imports every record into a task that validates, covering all 29 subcategories", () => {
    expect(res.located.kind).toBe("dataset");
    expect(res.refused).toEqual([]);
    expect(res.imported.length).toBe(87);
    for (const x of res.imported) {
      expect(x.task, x.record.rel).not.toBeNull();
      expect(TaskRecordSchema.safeParse(x.task).success, x.record.rel).toBe(true);
      expect(x.task!.provenance).toMatchObject({ dataset: "esi-bench", record_id: x.record.raw.id, file: x.record.rel });
    }
    // the records reach every esi3d subcategory, each from its (big_task, small_task)
    expect([...new Set(res.imported.map((x) => x.subcategory))].sort()).toEqual([...SUBCATEGORIES].sort());
  });

  it("keys subcategories on (big_task, small_task): 'Spatial Relations' is also a mirror subcategory", () => {
    expect(byId("3112").subcategory).toBe("mirror_spatial_relations");
    expect(byId("3112").task!.category).toBe("specular_reflection");
    expect(byId("2141").subcategory).toBe("geometric_configuration");
    expect(byId("2141").task!.category).toBe("spatial_relations");
  });

  it("uses ESI's runner camera: 1280x720 at 63.29 deg, 70 deg for Deformable; heights down to 0.02 m", () => {
    // ESI's runner: a 20.955 mm aperture at 17 mm focal length
    expect(byId("0927").task!.camera).toEqual({ width: 1280, height: 720, hfov_deg: (2 * Math.atan(20.955 / 34) * 180) / Math.PI });
    expect(byId("0927").task!.camera.hfov_deg).toBeCloseTo(63.293, 3);
    expect(byId("1828").task!.camera.hfov_deg).toBe(70);
    const mt = byId("0927").task!;
    expect(mt.agent_limits?.min_camera_height_m).toBe(0.02);
    expect(mt.agent_initial!.position[2]).toBeCloseTo(0.0216, 4); // 0.png of the transparency ring, on the floor
  });

  it("reads view numbers from names and flags by _indices, never by list position", () => {
    const rec = sampleRecord(PATHS.distanceOffCentre);
    const md = JSON.parse(rec.metadata_json!);
    const t = byId(rec.id!).task!;
    const names = (md.camera_poses as Array<{ _key: string }>).map((p) => p._key);
    expect(names.indexOf("10.png")).not.toBe(10); // the exporter sorted the keyed list as strings
    const near = t.objects.find((o) => o.role === "target" && o.category === md.objects.find((o: { _key: string }) => o._key === "obj_near").category)!;
    for (const n of [2, 10, 12, 21]) {
      const v = t.candidate_views!.find((c) => c.view === n)!;
      expect(v.name).toBe(`${n}.png`);
      const flag = (md.exist_near as Array<{ _indices: number[]; value: boolean }>).find((f) => f._indices[0] === n)!.value;
      expect(v.visibility.find((f) => f.id === near.id)?.visible).toBe(flag);
    }
    // the runner's initial view: the first view number whose flags show near and far (its index bug fixed)
    expect(t.initial_view).toBe("12.png");
    expect(byId(rec.id!).draft.initial!.runner).toMatchObject({ name: "2.png", shows: false });
  });

  it("converts ESI's USD camera quaternions to the agent's yaw and pitch (zero roll)", () => {
    const t = byId("0927").task!;
    for (const v of t.candidate_views!) {
      const a = usdCameraAngles(v.quaternion_xyzw);
      expect(Math.abs(a.roll)).toBeLessThan(1e-6);
      expect([a.yaw, a.pitch]).toEqual([v.yaw, v.pitch]);
    }
    // 0.png of the transparency ring looks from -Y towards +Y, horizontally (azimuth 270 in the record)
    const v0 = t.candidate_views!.find((v) => v.name === "0.png")!;
    expect(v0.yaw).toBeCloseTo(Math.PI / 2, 6);
    expect(v0.pitch).toBeCloseTo(0, 6);
  });

  it("keeps unknowns unknown: no extents for triangles, no model for scene_native references, no room", () => {
    const tri = byId("2141").task!;
    expect(tri.objects.every((o) => o.extent === null && o.position_frame === "base_link")).toBe(true);
    expect(tri.room.size).toBeNull();
    expect(tri.lighting).toBeNull();
    expect(unresolvedFields(tri)).toContain("objects[0].extent (unknown until capture)");
    const ref = byId("0789").task!.objects.find((o) => o.role === "reference")!;
    expect(ref).toMatchObject({ model: null, scene_object: true });
    const mt = byId("0927").task!.objects[0]!;
    expect(mt.extent_source).toBe("record_world_aabb");
    expect(mt.model).toBe("round_bottom_flask/injdmj");
    // Partial Occlusion's floor support becomes the room's world bounds and floor height
    const po = byId("1145").task!;
    expect(po.room.bounds).toBeDefined();
    expect(po.room.floor_z).toBeCloseTo(0, 4);
    expect(po.objects.some((o) => o.category === "floors")).toBe(false);
    // an imported task is not a pipeline task as it is
    expect(TaskSchema.safeParse(tri).success).toBe(false);
  });

  it("maps ESI's answer forms: orderings, assignments, step sequences, parts, flattened options", () => {
    expect(byId("1740").task).toMatchObject({ answer_format: "any_ordering" });
    expect(byId("1740").task!.answer_spec).toMatchObject({ kind: "any_ordering", items: ["can_of_coffee", "hummus_box", "jar_of_bath_salt"] });
    expect(byId("2075").task!.answer_spec).toEqual({
      kind: "assignment",
      targets: ["medium container", "small container"],
      pairs: [{ item: "soap bottle", target: "medium container" }],
    });
    expect(byId("0143").task!.answer_spec).toMatchObject({ kind: "step_sequence", steps: [{ answer: "turn right" }, { answer: "turn left" }] });
    expect(byId("0001").task!).toMatchObject({ answer_format: "parts", answer: '{"A":"right","C":"left"}' });
    expect(byId("1828").task!).toMatchObject({ options: ["cheesecake", "canned food", "bottle of maple syrup", "jar of mayonnaise"], answer: "canned food" });
    expect(byId("3222").task!).toMatchObject({ answer_format: "integer", options: ["0", "1", "2", "3"], answer: "2" });
    expect(byId("2208").task!.answer).toBe("random");
    expect(byId("3010").task!).toMatchObject({ answer_format: "yes_no", answer: "yes" });
    expect(byId("1925").task!.answer).toBe("hingeless jar"); // "left"
    expect(byId("0608").task!).toMatchObject({ options: ["tennis ball", "conch"], answer: "conch" });
  });

  it("counting: the placed proxy category is what esi3d counts; the asked one is kept", () => {
    const t = byId("0414").task!;
    expect(t.label_metadata).toMatchObject({ category: "club_sandwich", asked_category: "hammer" });
    expect(t.objects.filter((o) => o.role === "target").length).toBe(Number(t.answer));
    const [x0, y0, x1, y1] = JSON.parse(sampleRecord(PATHS.countingProxy).metadata_json!).question_data.render.room_bbox.bbox_world_xy;
    expect(t.room.bounds).toEqual({ min: [x0, y0], max: [x1, y1] });
    expect(t.room.size).toEqual([x1 - x0, y1 - y0]);
  });

  it("records without a camera or objects import with what they have", () => {
    const lv = byId("1925").task!;
    expect(lv.objects).toEqual([]);
    expect(lv.agent_initial).toBeNull();
    expect(lv.candidate_views).toBeUndefined();
  });
});

describe("ESI-Bench import: malformed records", () => {
  it("refuses each bad record naming the file and the field, and imports the rest", () => {
    const dir = sampleCopy();
    writeRecord(dir, PATHS.triangleFar, JSON.stringify(sampleRecord(PATHS.triangleFar)).slice(0, 500)); // truncated
    writeRecord(dir, PATHS.transparencyYes, { ...sampleRecord(PATHS.transparencyYes), metadata_json: "{not json" });
    writeRecord(dir, PATHS.mirrorRelations, { ...sampleRecord(PATHS.mirrorRelations), small_task: "Mirror Magic" });
    const c = sampleRecord(PATHS.contactOld);
    const md = JSON.parse(c.metadata_json!);
    delete md.objects[1].position;
    writeRecord(dir, PATHS.contactOld, { ...c, metadata_json: JSON.stringify(md) });
    const r = importRecords(dir);
    expect(r.imported.length).toBe(83);
    const why = (rel: string) => r.refused.find((x) => x.rel === rel)!;
    expect(r.refused.length).toBe(4);
    expect(why(PATHS.triangleFar)).toMatchObject({ field: "(file)" });
    expect(why(PATHS.triangleFar).reason).toMatch(/not valid JSON, e.g. truncated/);
    expect(why(PATHS.transparencyYes)).toMatchObject({ field: "metadata_json" });
    expect(why(PATHS.transparencyYes).reason).toMatch(/not JSON text/);
    expect(why(PATHS.mirrorRelations)).toMatchObject({ field: "small_task" });
    expect(why(PATHS.mirrorRelations).reason).toMatch(/unknown subcategory .*Mirror Magic/);
    expect(why(PATHS.contactOld)).toMatchObject({ field: "metadata_json.objects[obj2].position" });
    expect(why(PATHS.contactOld).reason).toMatch(/missing \(expected 3 numbers\)/);
    for (const x of r.refused) expect(x.file).toBe(join(dir, x.rel));
  });

  it("reads one record, or a category index file's json_paths", () => {
    const one = importRecords(join(JSON_CLEAN, PATHS.contactOld));
    expect(one.located.kind).toBe("record");
    expect(one.imported.map((x) => x.record.rel)).toEqual([PATHS.contactOld]);
    const dir = sampleCopy();
    const index = join(dir, "Spatial Relations.json");
    writeFileSync(index, JSON.stringify({ json_paths: [PATHS.contactOld, PATHS.triangleFar, "Spatial Relations/none.json"], counts: {}, sampling_seed: 7 }));
    const r = importRecords(index);
    expect(r.located.kind).toBe("index");
    expect(r.imported.map((x) => x.record.raw.id)).toEqual(["2830", "2141"]);
    expect(r.refused).toEqual([expect.objectContaining({ rel: "Spatial Relations/none.json", field: "(file)" })]);
    // walking the directory skips the index file itself
    expect(importRecords(dir).imported.length).toBe(87);
    rmSync(index);
    // a folder below json_clean still gives paths relative to json_clean (as index files and provenance use)
    expect(
      importRecords(join(dir, "Spatial Relations"))
        .imported.map((x) => x.record.rel)
        .every((rel) => rel.startsWith("Spatial Relations/")),
    ).toBe(true);
  });
});
