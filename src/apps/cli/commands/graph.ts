import type { Command } from "commander";
import { writeFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { readBundle } from "../../../../bridge/bundle/io.js";
import { writeJsonAtomic } from "../../../../bridge/task/io.js";
import { buildPointCloud } from "../../../../reconstruct/index.js";
import { buildSceneGraph, INSTANCE_MODES, type InstanceMode } from "../../../../scenegraph/build.js";
import { MASK_MODES, type MaskMode } from "../../../../scenegraph/evidence.js";
import { diagnose, type Diagnosis } from "../../../../scenegraph/diagnosis.js";
import { trueRelations } from "../../../../scenegraph/truth.js";
import { toConceptGraphs } from "../../../../scenegraph/export.js";
import type { SceneGraph } from "../../../../scenegraph/types.js";
import { addCloudOptions, cloudOptionsFrom } from "./points.js";
import { choiceOption } from "../options.js";
import { fix, formatTable, pct } from "../table.js";

export function addGraphOptions(cmd: Command): Command {
  return addCloudOptions(cmd)
    .option("--masks <mode>", "evidence: semantic | instance | oracle | none (see README 'Evidence modes')", choiceOption("--masks", MASK_MODES), "instance")
    .option("--instances <mode>", "instance builder: fusion (2D masks fused across views) | dbscan (label-agnostic clustering)", choiceOption("--instances", INSTANCE_MODES), "fusion");
}

export async function graphFromBundle(bundleDir: string, opts: Record<string, unknown>) {
  const bundle = readBundle(bundleDir);
  const masks = opts.masks as MaskMode;
  // with masks, structure points never reach an instance: leave them out of the cloud
  const structure = new Set(bundle.manifest.instances.filter((e) => e.structure).map((e) => e.id));
  const cloud = await buildPointCloud(bundle, { ...cloudOptionsFrom(opts), excludeIds: masks === "none" ? undefined : structure });
  const instances = (masks === "none" && opts.instances === "fusion" ? "dbscan" : opts.instances) as InstanceMode;
  if (instances !== opts.instances) process.stderr.write("graph: --masks none has no 2D masks to fuse; using --instances dbscan\n");
  const result = buildSceneGraph(cloud, bundle, { masks, instances });
  const diagnosis = diagnose({ graph: result.graph, members: result.members, cloud, task: bundle.manifest.task, bundle, trueRelations: trueRelations(bundle.manifest.task) });
  return { bundle, cloud, ...result, diagnosis };
}

export function printDiagnosis(graph: SceneGraph, d: Diagnosis): string {
  const out: string[] = [];
  const byNode = new Map(d.nodes.map((n) => [n.node, n]));
  out.push(`scene graph of ${graph.task_id} (${graph.paradigm} views, source ${graph.source}, masks ${graph.masks}${graph.masks === "oracle" ? " [ORACLE: diagnostic upper bound]" : ""}, instances ${graph.instances})`);
  out.push("");
  out.push(
    formatTable(
      ["node", "label", "status", "true object", "points", "views", "flags"],
      graph.nodes.map((n) => {
        const dn = byNode.get(n.id)!;
        const flags = [n.flags.low_support ? "low_support" : "", n.flags.fragment ? "fragment" : "", n.flags.possible_duplicate_of.length ? `possible_duplicate_of ${n.flags.possible_duplicate_of.join(",")}` : "", dn.twin ? `twin ${dn.twin}` : ""].filter(Boolean).join("; ");
        return [n.id, n.label, dn.status, dn.object_name ?? "-", n.raw_point_count, n.views.length, flags || "-"];
      }),
    ),
  );
  const missed = d.objects.filter((o) => o.status !== "matched");
  if (missed.length) {
    out.push("");
    out.push(formatTable(["missed object", "status", "pixels seen"], missed.map((o) => [o.name, o.status, o.observed_px])));
  }
  const m = d.metrics;
  out.push("");
  out.push(`nodes ${m.nodes}, objects ${m.objects} (${m.observed_objects} observed): matched ${m.matched}, duplicates ${m.duplicates}, merged ${m.merged}, hallucinated ${m.hallucinated}, missed ${m.missed_unseen} unseen + ${m.missed_lost} lost`);
  out.push(`node precision ${pct(m.precision)}, recall ${pct(m.recall)} (observed ${pct(m.recall_observed)}), F1 ${fix(m.f1)} (observed ${fix(m.f1_observed)})`);
  out.push(`duplicate rate ${pct(m.duplicate_rate)}, hallucination rate ${pct(m.hallucination_rate)}, miss rate ${pct(m.miss_rate)}; centroid error ${fix(m.centroid_error_m)} m, extent error ${fix(m.extent_error_m)} m`);
  out.push(`relations: precision ${pct(m.relation_precision)}, recall ${pct(m.relation_recall)}` + (Object.keys(m.relations).length ? "; " + Object.entries(m.relations).map(([p, s]) => `${p} ${s.tp}/${s.tp + s.fp}`).join(", ") : ""));
  return out.join("\n") + "\n";
}

export function registerGraph(program: Command): void {
  addGraphOptions(
    program
      .command("graph")
      .description("build a scene graph (nodes, relations, evidence) from a frame bundle")
      .argument("<bundle>", "frame bundle directory"),
  )
    .requiredOption("-o, --out <file>", "scene-graph JSON (esi3d-graph/1, docs/scene-graph.md)")
    .option("--diagnosis <file>", "also write the quality diagnosis against the ground truth (JSON)")
    .option("--conceptgraphs <dir>", "also write a ConceptGraphs-compatible export (scene_graph.json, edges.json)")
    .action(async (bundleDir: string, opts: Record<string, unknown>) => {
      const r = await graphFromBundle(bundleDir, opts);
      writeJsonAtomic(opts.out as string, r.graph);
      if (opts.diagnosis) writeJsonAtomic(opts.diagnosis as string, r.diagnosis);
      if (opts.conceptgraphs) {
        const dir = opts.conceptgraphs as string;
        mkdirSync(dir, { recursive: true });
        const cg = toConceptGraphs(r.graph);
        writeFileSync(join(dir, "scene_graph.json"), JSON.stringify(cg.nodes, null, 1));
        writeFileSync(join(dir, "cfslam_object_relations.json"), JSON.stringify(cg.edges, null, 1));
      }
      const m = r.diagnosis.metrics;
      process.stdout.write(`wrote ${opts.out as string}: ${r.graph.nodes.length} nodes, ${r.graph.relations.length} relations (node F1 ${fix(m.f1_observed)} on observed objects, ${m.duplicates} duplicate(s), ${m.hallucinated} hallucinated)\n`);
    });

  // `esi3d inspect` (the node table, the 3D page, exports) lives in ./inspect.ts
}
