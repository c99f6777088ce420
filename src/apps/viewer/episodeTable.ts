/**
 * The terminal's view of an active episode (`esi3d inspect RUN --task ID --paradigm active` without -o):
 * one row per step from the record (nothing replayed), and with --step the whole record of one step.
 */
import { fix, formatTable } from "../../../core/table.js";
import { worldChangedAfter, worldChangeText, type ActiveEpisode, type ItemRecord } from "../../eval/records.js";

const deg = (rad: number) => `${Math.round((rad * 180) / Math.PI)}°`;
const poseText = (p: ActiveEpisode["steps"][number]["pose"]) => `(${p.position.map((x) => x.toFixed(2)).join(", ")}) yaw ${deg(p.yaw)} pitch ${deg(p.pitch)}`;

export function episodeTable(record: ItemRecord, label: string): string {
  const e = record.active!;
  const rows = e.steps.map((s) => [
    s.step,
    s.action ?? (worldChangedAfter(s) ? "(the world changed)" : s.valid ? "–" : `invalid: ${s.requested_action.slice(0, 24)}`),
    s.blocked === null ? "" : s.blocked ? "blocked" : "",
    poseText(s.pose),
    s.answer ?? (s.status === "parsed" ? "not sure" : s.status),
    fix(s.confidence, 2),
    s.correct === null ? "" : s.correct ? "✓" : "✗",
    s.graph_nodes ?? "",
    s.flagged_duplicates ?? "",
    s.relevant_seen ? "yes" : "no",
  ]);
  const head = `episode of ${record.task_id} (${label}, agent ${e.agent}): ${e.steps_used} step(s), ${record.views} view(s), stopped by ${e.stop_reason}${e.forced_choice ? ", forced choice" : ""}; final answer ${record.answer ?? "–"} (truth ${record.truth}${record.correct === null ? `, ${record.status}` : record.correct ? ", correct" : ", wrong"})`;
  return `${head}\n\n${formatTable(["step", "action", "blocked", "pose", "answer", "conf", "ok", "nodes", "dup flags", "all seen"], rows)}\n`;
}

/** One step in full: what the agent saw (views, graph size), said (answer, reasoning, trace) and did. */
export function stepDetail(record: ItemRecord, step: number): string {
  const s = record.active!.steps[step - 1]!;
  const lines = [
    `step ${s.step} of ${record.active!.steps_used} (${record.key})`,
    `  pose       ${poseText(s.pose)}`,
    `  action     ${s.action ?? (worldChangedAfter(s) ? `none: ${worldChangeText(s)}` : "none")}${s.requested_action !== s.action ? ` (requested: ${s.requested_action})` : ""}${s.blocked ? ", blocked" : ""}${s.reprompted ? ", re-prompted" : ""}`,
    `  answer     ${s.answer ?? "not sure"} (${s.status}), confidence ${fix(s.confidence, 2)}${s.correct === null ? "" : s.correct ? ", correct" : ", wrong"}`,
    s.graph_nodes === null
      ? null
      : `  graph      ${s.graph_nodes} node(s), ${s.flagged_duplicates ?? 0} flagged possible_duplicate_of${s.duplicates === null ? "" : `, ${s.duplicates} true duplicate(s)`}`,
    `  all seen   ${s.relevant_seen ? "yes" : "no"} (every object the question needs seen in some view)`,
    `  reasoning  ${s.reasoning || "–"}`,
    ...(s.trace.length ? ["  trace", ...s.trace.map((t) => `    ${t}`)] : []),
  ];
  return lines.filter((l) => l !== null).join("\n") + "\n";
}
