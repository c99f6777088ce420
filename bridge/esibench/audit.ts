/**
 * The audit of an import (ESI-Bench's released records): what is wrong or changed in each record,
 * naming the file and the field, with the quantities behind each finding.
 *
 * Finding classes (what --dedupe and --drop-inconsistent act on):
 * - duplicate: the record is byte-identical to an earlier one apart from its id (--dedupe drops it);
 * - inconsistent: the question, answer or label disagrees with what the metadata places
 *   (--drop-inconsistent drops it; an answer that cannot be mapped into its options is never written);
 * - fixed: the importer changed the answer or options to fit esi3d's formats (kept);
 * - camera: the initial camera does not show what it should, or ESI's runner would pick another pose (kept).
 */
import type { TaskRecord } from "../../core/task/schema.js";
import type { Subcategory } from "../../core/task/taxonomy.js";
import { SUBCATEGORY_TITLES } from "../../core/task/taxonomy.js";
import { displayName } from "./draft.js";
import type { ImportedRecord, ImportResult, Refusal } from "./importer.js";
import { ESI_STRING_FIELDS } from "./record.js";
import { applyRule, type RuleCheck } from "./rules.js";
import { PROXY_SUBCATEGORIES, proxyTask, type ProxySkipCode } from "./proxy.js";
import { answerPositions, type AnswerPositions } from "./answerPositions.js";

const PROXY_SKIP_TEXT: Record<ProxySkipCode, string> = {
  not_imported: "not imported",
  subcategory: `not one of the ${PROXY_SUBCATEGORIES.size} subcategories proxies cover`,
  no_camera: "no camera recorded",
  answer_format: "structured answer format",
  geometry: "an object the question needs has no recorded extent and no library model",
  schema: "the proxy is not a valid task",
};

export const FINDING_KINDS = [
  "duplicate",
  "question_names_unplaced_objects",
  "answer_outside_options",
  "options_rewritten",
  "counting_category_mismatch",
  "initial_camera_far",
  "initial_camera_behind_objects",
  "runner_initial_view_index",
  "label_disagrees_with_geometry",
  "object_left_the_scene",
] as const;
type FindingKind = (typeof FINDING_KINDS)[number];
type FindingClass = "duplicate" | "inconsistent" | "fixed" | "camera";

interface Finding {
  kind: FindingKind;
  class: FindingClass;
  record_id: string;
  task_id: string;
  subcategory: Subcategory;
  file: string;
  field: string;
  message: string;
  quantities?: Record<string, unknown>;
}

/**
 * An initial camera farther than this from the centroid of the objects it should show is "far" (m): ESI's
 * triangle generator means 2.5 x side = 0.83-1.63 m, its centroid bug puts 250/568 records beyond 3 m
 * (in ESI-Bench's released records).
 */
const INITIAL_VIEW_FAR_M = 3.0;

/**
 * The objects a subcategory's initial view is meant to show: all relevant ones, except Spatial Distance's
 * reference (ESI-Bench's released runner needs near and far). Dimensional Size's runner needs one object
 * with its reference only, and counting views look at the room, so those are not checked.
 */
const SHOULD_SHOW: Partial<Record<Subcategory, (t: TaskRecord) => number[]>> = Object.fromEntries(
  (
    [
      "geometric_configuration",
      "linear_alignment",
      "physical_contact",
      "material_transparency",
      "partial_occlusion",
      "view_hallucination",
      "spatial_distance",
    ] as const
  ).map((s) => [
    s,
    (t: TaskRecord) => t.relevant_object_ids.filter((id) => s !== "spatial_distance" || t.objects.find((o) => o.id === id)?.role !== "reference"),
  ]),
);

/**
 * An object this far below every other object and every candidate camera has left the scene (m): it fell
 * through the floor after placement (a BEHAVIOR-1K storey is about 3 m).
 */
const LEFT_SCENE_DROP_M = 10;

/** Object phrases of ESI's question templates (as the released records word them), per subcategory. */
const QUESTION_OBJECTS: Partial<Record<Subcategory, RegExp>> = {
  geometric_configuration: /^Do the (.+?), (.+?) and (.+?) form /,
  linear_alignment: /^Are the (.+?), (.+?) and (.+?) in a line/,
  physical_contact: /^Are the (.+?) and (.+?) touching each other\?$/,
  material_transparency: /^Is the (.+?) inside the (.+?)\?$/,
  spatial_distance: /closer to the (.+?): the (.+?) or the (.+?)\?$/,
  dimensional_size: /^Which (.+?) is larger: the one near the (.+?), or the one near the (.+?)\?$/,
};

interface SubcategorySummary {
  title: string;
  records: number;
  tasks: number;
  excluded: number;
  findings: Partial<Record<FindingKind, number>>;
  /** esi3d's rule on the recorded geometry: agrees / checked (null: esi3d has no rule). */
  rule: { checked: number; agree: number } | null;
  /** Proxy scenes (--simulator builtin): how many tasks have one, and in how many its geometry implies ESI's label. */
  proxy: { proxiable: number; implies_label: number; checked: number; skip_reasons: Record<string, number> };
  /**
   * Where the answer sits among the options (imports keep ESI's order): tasks per option slot, and each slot's
   * share under no bias (a task of k options adds 1/k to each of its k slots). A skew here is what a model
   * answering by position, or a position prior, collects.
   */
  answer_positions: AnswerPositions;
}

export interface Audit {
  format: "esi3d-esi-audit/1";
  source: string;
  records: number;
  tasks: number;
  excluded: Array<{ record_id: string; file: string; reason: string }>;
  refused: Refusal[];
  findings: Finding[];
  subcategories: Partial<Record<Subcategory, SubcategorySummary>>;
  thresholds: Record<string, number>;
}

const r3 = (x: number) => Math.round(x * 1000) / 1000;

function base(x: ImportedRecord): Pick<Finding, "record_id" | "task_id" | "subcategory" | "file"> {
  return { record_id: x.record.raw.id, task_id: `esi-${x.record.raw.id}`, subcategory: x.subcategory, file: x.record.rel };
}

function duplicates(items: ImportedRecord[]): Finding[] {
  const first = new Map<string, ImportedRecord>();
  const out: Finding[] = [];
  for (const x of items) {
    const key = JSON.stringify(ESI_STRING_FIELDS.filter((f) => f !== "id").map((f) => x.record.raw[f]));
    const prev = first.get(key);
    if (!prev) first.set(key, x);
    else
      out.push({
        ...base(x),
        kind: "duplicate",
        class: "duplicate",
        field: "(every field but id)",
        message: `identical to record ${prev.record.raw.id} (${prev.record.rel}) apart from its id`,
        quantities: { duplicate_of: prev.record.raw.id, duplicate_of_file: prev.record.rel },
      });
  }
  return out;
}

function questionObjects(x: ImportedRecord): Finding[] {
  const re = QUESTION_OBJECTS[x.subcategory];
  if (!re) return [];
  const m = re.exec(x.record.raw.question);
  if (!m) return [];
  // Dimensional Size's first phrase is the compared category, the others the references
  const phrases = m.slice(1).map((s) => s.trim().toLowerCase());
  const placed = x.draft.objects.map((o) => displayName(o.category).toLowerCase());
  const missing = phrases.filter((p) => !placed.includes(p));
  if (!missing.length) return [];
  return [
    {
      ...base(x),
      kind: "question_names_unplaced_objects",
      class: "inconsistent",
      field: "question",
      message: `the question names ${missing.map((p) => `"${p}"`).join(", ")}, which metadata_json does not place (it places ${placed.map((p) => `"${p}"`).join(", ")})`,
      quantities: { named: phrases, placed },
    },
  ];
}

function answers(x: ImportedRecord): Finding[] {
  const out: Finding[] = [];
  for (const f of x.draft.answer.fixes) {
    const kind: FindingKind = f.field === "options_json" && !/flattened/.test(f.why) ? "options_rewritten" : "answer_outside_options";
    out.push({ ...base(x), kind, class: "fixed", field: f.field, message: `${f.from} -> ${f.to} (${f.why})` });
  }
  if (x.draft.answer.spec)
    out.push({
      ...base(x),
      kind: "answer_outside_options",
      class: "fixed",
      field: "answer",
      message: `a ${x.draft.answer.spec.kind} answer (${x.record.raw.answer.slice(0, 120)}) is not one of options_json by construction; kept as answer_spec`,
    });
  if (x.excluded)
    out.push({ ...base(x), kind: "answer_outside_options", class: "inconsistent", field: "answer", message: `${x.draft.answer.outside}: not imported` });
  return out;
}

function counting(x: ImportedRecord): Finding[] {
  const c = x.draft.counting;
  if (!c || c.placed === null || c.asked === c.placed) return [];
  return [
    {
      ...base(x),
      kind: "counting_category_mismatch",
      class: "inconsistent",
      field: "metadata_json.question_data.count_target",
      message: `the question counts "${c.asked}" but the placed assets are "${c.placed}" (question_data.render.target_category)`,
      quantities: { asked: c.asked, placed: c.placed },
    },
  ];
}

function camera(x: ImportedRecord, t: TaskRecord): Finding[] {
  const out: Finding[] = [];
  const run = x.draft.initial?.runner;
  if (run)
    out.push({
      ...base(x),
      kind: "runner_initial_view_index",
      class: "camera",
      field: "metadata_json.camera_poses",
      message: `${run.note}; imported with ${x.draft.initial!.name}${run.shows === false ? `; ${run.name}'s own flags do not show the objects` : ""}`,
      quantities: { imported_view: x.draft.initial!.name, runner_view: run.name, runner_view_shows_objects: run.shows },
    });
  const should = SHOULD_SHOW[x.subcategory];
  if (!should || !t.agent_initial) return out;
  const rel = should(t).map((id) => t.objects.find((o) => o.id === id)!);
  if (!rel.length) return out;
  const { position: c, yaw, pitch } = t.agent_initial;
  const f = [Math.cos(pitch) * Math.cos(yaw), Math.cos(pitch) * Math.sin(yaw), Math.sin(pitch)];
  const centroid = [0, 1, 2].map((k) => rel.reduce((s, o) => s + o.position[k]!, 0) / rel.length);
  const dist = Math.hypot(centroid[0]! - c[0], centroid[1]! - c[1], centroid[2]! - c[2]);
  const field = `metadata_json.camera_poses[${t.initial_view ?? "?"}]`;
  if (dist > INITIAL_VIEW_FAR_M)
    out.push({
      ...base(x),
      kind: "initial_camera_far",
      class: "camera",
      field,
      message: `the initial camera is ${r3(dist)} m from the centroid of the objects it should show (more than ${INITIAL_VIEW_FAR_M} m)`,
      quantities: { distance_m: r3(dist) },
    });
  const behind = rel.filter((o) => (o.position[0] - c[0]) * f[0]! + (o.position[1] - c[1]) * f[1]! + (o.position[2] - c[2]) * f[2]! <= 0);
  if (behind.length)
    out.push({
      ...base(x),
      kind: "initial_camera_behind_objects",
      class: "camera",
      field,
      message: `the initial camera stands in front of ${behind.map((o) => `${o.name} (object ${o.id})`).join(", ")}: behind the camera, not in view`,
      quantities: {
        behind: behind.map((o) => o.id),
        depth_m: behind.map((o) => r3((o.position[0] - c[0]) * f[0]! + (o.position[1] - c[1]) * f[1]! + (o.position[2] - c[2]) * f[2]!)),
      },
    });
  return out;
}

function leftScene(x: ImportedRecord, t: TaskRecord): Finding[] {
  const out: Finding[] = [];
  t.objects.forEach((o, i) => {
    const others = [...t.objects.filter((p) => p !== o).map((p) => p.position[2]), ...(t.candidate_views ?? []).map((v) => v.position[2])];
    if (others.length && o.position[2] < Math.min(...others) - LEFT_SCENE_DROP_M)
      out.push({
        ...base(x),
        kind: "object_left_the_scene",
        class: "inconsistent",
        field: `${x.draft.objects[i]!.field}.position`,
        message: `${o.name} (object ${o.id}) is at z = ${r3(o.position[2])} m, more than ${LEFT_SCENE_DROP_M} m below everything else: it fell out of the scene after placement`,
        quantities: { z_m: r3(o.position[2]) },
      });
  });
  return out;
}

function label(x: ImportedRecord, check: RuleCheck | null): Finding[] {
  if (!check || check.agrees !== false) return [];
  return [
    {
      ...base(x),
      kind: "label_disagrees_with_geometry",
      class: "inconsistent",
      field: "answer",
      message: `ESI's label "${x.task!.answer}"; esi3d's rule (${check.rule}) gives "${check.answer}" on the placed geometry`,
      quantities: check.quantities,
    },
  ];
}

export function auditImport(res: ImportResult, source: string): Audit {
  const findings: Finding[] = [...duplicates(res.imported)];
  const subs: Audit["subcategories"] = {};
  const summary = (s: Subcategory): SubcategorySummary =>
    (subs[s] ??= {
      title: SUBCATEGORY_TITLES[s],
      records: 0,
      tasks: 0,
      excluded: 0,
      findings: {},
      rule: null,
      proxy: { proxiable: 0, implies_label: 0, checked: 0, skip_reasons: {} },
      answer_positions: answerPositions([]),
    });
  for (const x of res.imported) {
    const s = summary(x.subcategory);
    s.records++;
    findings.push(...questionObjects(x), ...answers(x), ...counting(x));
    if (!x.task) {
      s.excluded++;
      continue;
    }
    s.tasks++;
    findings.push(...camera(x, x.task), ...leftScene(x, x.task));
    const check = applyRule(x.task);
    if (check && check.agrees !== null) {
      s.rule ??= { checked: 0, agree: 0 };
      s.rule.checked++;
      if (check.agrees) s.rule.agree++;
    }
    findings.push(...label(x, check));
    const p = proxyTask(x.task);
    if ("skip" in p) s.proxy.skip_reasons[PROXY_SKIP_TEXT[p.code]] = (s.proxy.skip_reasons[PROXY_SKIP_TEXT[p.code]] ?? 0) + 1;
    else {
      s.proxy.proxiable++;
      if (p.check && p.check.agrees !== null) {
        s.proxy.checked++;
        if (p.check.agrees) s.proxy.implies_label++;
      }
    }
  }
  for (const f of findings) {
    const s = summary(f.subcategory);
    s.findings[f.kind] = (s.findings[f.kind] ?? 0) + 1;
  }
  for (const [s, sum] of Object.entries(subs))
    sum!.answer_positions = answerPositions(res.imported.filter((x) => x.subcategory === s && x.task).map((x) => x.task!));
  return {
    format: "esi3d-esi-audit/1",
    source,
    records: res.imported.length + res.refused.length,
    tasks: res.imported.filter((x) => x.task).length,
    excluded: res.imported.filter((x) => !x.task).map((x) => ({ record_id: x.record.raw.id, file: x.record.rel, reason: x.excluded! })),
    refused: res.refused,
    findings,
    subcategories: subs,
    thresholds: { initial_view_far_m: INITIAL_VIEW_FAR_M, left_scene_drop_m: LEFT_SCENE_DROP_M },
  };
}

/** Record ids --dedupe and --drop-inconsistent leave out. */
export function droppedIds(a: Audit, opts: { dedupe: boolean; dropInconsistent: boolean }): Map<string, string> {
  const out = new Map<string, string>();
  for (const f of a.findings) {
    if (opts.dedupe && f.class === "duplicate") out.set(f.record_id, `--dedupe: ${f.message}`);
    if (opts.dropInconsistent && f.class === "inconsistent" && !out.has(f.record_id)) out.set(f.record_id, `--drop-inconsistent: ${f.kind}: ${f.message}`);
  }
  return out;
}
