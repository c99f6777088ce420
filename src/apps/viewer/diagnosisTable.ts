/**
 * A scene graph and its diagnosis as the terminal shows them: the node table, the missed objects, the metrics.
 * Without a diagnosis (a bundle with no task record has no truth), the node table alone.
 */
import { fix, formatTable, pct } from "../../../core/table.js";
import type { Diagnosis } from "../../../scenegraph/diagnosisSchema.js";
import type { SceneGraph } from "../../../scenegraph/types.js";

export function diagnosisTable(graph: SceneGraph, d: Diagnosis | null): string {
  const out: string[] = [];
  const byNode = new Map((d?.nodes ?? []).map((n) => [n.node, n]));
  // a mirror ghost matches no object: it shows the one it is the reflection of
  const mirrored = (id: number | undefined) => (id === undefined ? undefined : `mirror of ${d?.objects.find((o) => o.id === id)?.name ?? `#${id}`}`);
  out.push(
    `scene graph of ${graph.task_id} (${graph.paradigm} views, source ${graph.source}, masks ${graph.masks}${graph.masks === "oracle" ? " [ORACLE: diagnostic upper bound]" : ""}, instances ${graph.instances})`,
  );
  out.push("");
  out.push(
    formatTable(
      ["node", "label", "status", "true object", "points", "views", "flags"],
      graph.nodes.map((n) => {
        const dn = byNode.get(n.id);
        const flags = [
          n.flags.low_support ? "low_support" : "",
          n.flags.fragment ? "fragment" : "",
          n.flags.possible_duplicate_of.length ? `possible_duplicate_of ${n.flags.possible_duplicate_of.join(",")}` : "",
          dn?.twin ? `twin ${dn.twin}` : "",
        ]
          .filter(Boolean)
          .join("; ");
        return [n.id, n.label, dn?.status ?? "-", dn?.object_name ?? mirrored(dn?.mirrors_object) ?? "-", n.raw_point_count, n.views.length, flags || "-"];
      }),
    ),
  );
  if (!d) {
    out.push("");
    out.push(`nodes ${graph.nodes.length}, relations ${graph.relations.length}; no task record, so no ground truth to diagnose against`);
    return out.join("\n") + "\n";
  }
  const missed = d.objects.filter((o) => o.status !== "matched");
  if (missed.length) {
    out.push("");
    out.push(
      formatTable(
        ["missed object", "status", "pixels seen"],
        missed.map((o) => [o.name, o.status, o.observed_px]),
      ),
    );
  }
  const m = d.metrics;
  out.push("");
  out.push(
    `nodes ${m.nodes}, objects ${m.objects} (${m.observed_objects} observed): matched ${m.matched}, duplicates ${m.duplicates}, merged ${m.merged}, hallucinated ${m.hallucinated}, stale ${m.stale ?? "-"}${m.mirror_ghosts === undefined ? "" : `, mirror ghosts ${m.mirror_ghosts}`}, missed ${m.missed_unseen} unseen + ${m.missed_lost} lost`,
  );
  out.push(
    `node precision ${pct(m.precision)}, recall ${pct(m.recall)} (observed ${pct(m.recall_observed)}), F1 ${fix(m.f1)} (observed ${fix(m.f1_observed)})`,
  );
  out.push(
    `duplicate rate ${pct(m.duplicate_rate)}, hallucination rate ${pct(m.hallucination_rate)}, stale rate ${m.stale_rate === undefined ? "-" : pct(m.stale_rate)}, miss rate ${pct(m.miss_rate)}; centroid error ${fix(m.centroid_error_m)} m, extent error ${fix(m.extent_error_m)} m`,
  );
  out.push(
    `relations: precision ${pct(m.relation_precision)}, recall ${pct(m.relation_recall)}` +
      (Object.keys(m.relations).length
        ? "; " +
          Object.entries(m.relations)
            .map(([p, s]) => `${p} ${s.tp}/${s.tp + s.fp}`)
            .join(", ")
        : ""),
  );
  return out.join("\n") + "\n";
}
