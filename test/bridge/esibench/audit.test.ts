/**
 * The import audit finds, on the sample, each kind of problem of ESI-Bench's released records that occurs
 * there (and on doctored copies those that do not: exact duplicates, cameras in front of their objects),
 * each naming the file and the field, with the quantities; --dedupe and --drop-inconsistent act on it.
 */
import { describe, expect, it } from "vitest";
import { importRecords } from "../../../bridge/esibench/importer.js";
import { auditImport, droppedIds } from "../../../bridge/esibench/audit.js";
import { auditMarkdown } from "../../../bridge/esibench/auditTable.js";
import { PATHS, SAMPLE, sampleCopy, sampleRecord, writeRecord } from "./esibenchHelpers.js";

const audit = auditImport(importRecords(SAMPLE), "sample");
const find = (id: string, kind: (typeof audit.findings)[number]["kind"]) => audit.findings.filter((f) => f.record_id === id && f.kind === kind);

describe("ESI-Bench import audit (the sample)", () => {
  it("flags questions that name objects the metadata does not place (another run's question)", () => {
    const [pc] = find("2803", "question_names_unplaced_objects");
    expect(pc).toMatchObject({ file: PATHS.contactMismatch, field: "question", class: "inconsistent" });
    expect(pc!.message).toMatch(/"shopping basket", "textbook".*"stroller", "shoe box"/);
    expect(find("0954", "question_names_unplaced_objects")).toHaveLength(1);
    // only those two sample records
    expect(
      audit.findings
        .filter((f) => f.kind === "question_names_unplaced_objects")
        .map((f) => f.record_id)
        .sort(),
    ).toEqual(["0954", "2803"]);
  });

  it("flags answers outside their options, saying how they were mapped", () => {
    expect(find("2208", "answer_outside_options")[0]!.message).toMatch(/random triangle -> random/);
    expect(find("1925", "answer_outside_options")[0]!.message).toMatch(/left -> hingeless jar/);
    expect(find("3010", "answer_outside_options")[0]!.message).toMatch(/case only/);
    expect(find("1828", "answer_outside_options")[0]!).toMatchObject({ field: "options_json" });
    for (const id of ["1738", "2075", "0143", "0001"]) expect(find(id, "answer_outside_options")[0]!.message, id).toMatch(/by construction/);
    expect(audit.findings.filter((f) => f.kind === "answer_outside_options").every((f) => f.class === "fixed")).toBe(true);
  });

  it("flags counting questions whose asked category is not the placed one", () => {
    const mismatched = audit.findings.filter((f) => f.kind === "counting_category_mismatch");
    expect(mismatched.map((f) => f.record_id).sort()).toEqual(["0342", "0414", "0428", "0479", "0548", "0553", "0571", "0591"]);
    expect(find("0414", "counting_category_mismatch")[0]!).toMatchObject({
      field: "metadata_json.question_data.count_target",
      quantities: { asked: "hammer", placed: "club_sandwich" },
    });
  });

  it("flags the triangle front camera the centroid bug puts far away, and the runner's index-vs-view-number picks", () => {
    const [far] = find("2141", "initial_camera_far");
    expect(far!.field).toBe("metadata_json.camera_poses[0.png]");
    expect(far!.quantities!.distance_m as number).toBeGreaterThan(audit.thresholds.initial_view_far_m!);
    expect(far!.quantities!.distance_m).toBeCloseTo(7.948, 2);
    const runner = audit.findings.filter((f) => f.kind === "runner_initial_view_index");
    expect(runner.map((f) => f.record_id).sort()).toEqual(["0683", "0789", "0813"]);
    expect(find("0789", "runner_initial_view_index")[0]!.quantities).toEqual({
      imported_view: "12.png",
      runner_view: "2.png",
      runner_view_shows_objects: false,
    });
  });

  it("flags labels esi3d's rules contradict on the placed geometry, with the quantities", () => {
    const lab = (id: string) => find(id, "label_disagrees_with_geometry")[0]!;
    expect(
      audit.findings
        .filter((f) => f.kind === "label_disagrees_with_geometry")
        .map((f) => f.record_id)
        .sort(),
    ).toEqual(["0683", "0789", "0813", "0954", "2208", "2717", "2735", "2803"]);
    expect(lab("2208").message).toMatch(/"random".*gives "isosceles"/);
    expect(lab("2717").quantities!.residual_m as number).toBeLessThan(0.04); // a "no" within 3 cm of a line
    expect(lab("2717").quantities!.residual_m).toBeCloseTo(0.029, 3);
    expect(lab("2735").quantities!.residual_m).toBeCloseTo(0.077, 3); // a "yes" with a moved object
    expect(lab("2803").quantities!.box_gap_m).toBe(0); // a "no" whose AABBs overlap
    expect(audit.subcategories.physical_contact!.rule).toEqual({ checked: 3, agree: 2 });
  });

  it("flags an object that fell out of the scene", () => {
    const [f] = find("0612", "object_left_the_scene");
    expect(f).toMatchObject({ file: PATHS.sizeFallen, field: "metadata_json.objects[ref_obj2].position" });
    expect(f!.quantities!.z_m as number).toBeLessThan(-1e5);
  });

  it("says for which subcategories the proxy scene still implies ESI's label", () => {
    expect(audit.subcategories.material_transparency!.proxy).toMatchObject({ proxiable: 3, checked: 3, implies_label: 2 });
    expect(audit.subcategories.counting_with_occlusion!.proxy).toMatchObject({ proxiable: 3, implies_label: 3 });
    expect(audit.subcategories.geometric_configuration!.proxy.proxiable).toBe(0);
    expect(Object.keys(audit.subcategories.geometric_configuration!.proxy.skip_reasons)).toEqual([
      "an object the question needs has no recorded extent and no library model",
    ]);
    const md = auditMarkdown(audit, { tasks: 87, dropped: [] });
    expect(md).toMatch(/\| Material Transparency \| 3 \| 3 \| 2\/3 \| 3 \| 2\/3 \|/);
    expect(md).toMatch(/\| 2803 \| Spatial Relations\/Physical Contact\/.* \| question \| inconsistent \| question_names_unplaced_objects \|/);
  });

  it("reports where the answer sits among the options, per subcategory (imports keep ESI's order)", () => {
    // the release's Dimensional Size answers are option 2, its label questions' option 1 (in the sample too)
    expect(audit.subcategories.dimensional_size!.answer_positions).toMatchObject({
      tasks: 3,
      counts: [0, 3],
      expected: [1.5, 1.5],
      top: { slot: 1, share: 1, expected_share: 0.5 },
    });
    expect(audit.subcategories.partial_occlusion!.answer_positions.counts).toEqual([3, 0]);
    expect(audit.subcategories.geometric_configuration!.answer_positions).toMatchObject({ counts: [1, 1, 1], biased: false });
    expect(auditMarkdown(audit, { tasks: 87, dropped: [] })).toMatch(/\| Dimensional Size \|.*\| 0 \/ 3 \(1\.5 \/ 1\.5\) \|/);
    // three of three is no evidence (167 of 167, the release's count, is: test/bridge/esibench/answerPositions.test.ts)
    expect(audit.subcategories.dimensional_size!.answer_positions.biased).toBe(false);
  });
});

describe("ESI-Bench import audit (doctored copies)", () => {
  it("finds exact duplicates, cameras in front of their objects, and what --dedupe / --drop-inconsistent drop", () => {
    const dir = sampleCopy();
    // a second export of a record: same content, another id and file name (ESI's X_0.json = X_0__eq.json)
    const dup = { ...sampleRecord(PATHS.triangleRandom), id: "9001" };
    writeRecord(dir, PATHS.triangleRandom.replace(".json", "__copy.json"), dup);
    // the triangle front camera moved past the objects, still looking the same way
    const t = sampleRecord(PATHS.triangleFar);
    const md = JSON.parse(t.metadata_json!);
    const front = md.camera_poses.find((p: { _key: string }) => p._key === "0.png");
    front.position[1] += 12;
    writeRecord(dir, PATHS.triangleFar, { ...t, metadata_json: JSON.stringify(md) });
    const a = auditImport(importRecords(dir), dir);
    const d = a.findings.filter((f) => f.kind === "duplicate");
    expect(d).toEqual([
      expect.objectContaining({
        record_id: "9001",
        class: "duplicate",
        field: "(every field but id)",
        quantities: { duplicate_of: "2208", duplicate_of_file: PATHS.triangleRandom },
      }),
    ]);
    const behind = a.findings.find((f) => f.kind === "initial_camera_behind_objects" && f.record_id === "2141")!;
    expect(behind.quantities!.behind).toEqual([16, 17, 18]);
    expect((behind.quantities!.depth_m as number[]).every((x) => x < 0)).toBe(true);
    expect([...droppedIds(a, { dedupe: true, dropInconsistent: false }).keys()]).toEqual(["9001"]);
    const inc = droppedIds(a, { dedupe: false, dropInconsistent: true });
    expect([...inc.keys()].sort()).toEqual([
      "0342",
      "0414",
      "0428",
      "0479",
      "0548",
      "0553",
      "0571",
      "0591",
      "0612",
      "0683",
      "0789",
      "0813",
      "0954",
      "2208",
      "2717",
      "2735",
      "2803",
      "9001",
    ]);
  });
});
