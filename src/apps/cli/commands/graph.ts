import type { Command } from "commander";
import { CONCEPTGRAPHS_FILES, pointNodes, writeConceptGraphs } from "../../../../scenegraph/export.js";
import { GRAPH_PIPELINE_FLAGS, GraphPipelineOptionsSchema } from "../../../../scenegraph/pipelineOptions.js";
import { addSchemaFlags, parseSchemaFlags } from "../../../../core/flags.js";
import { checkWritable, writeJsonAtomic } from "../../../../core/fs.js";
import { fix } from "../../../../core/table.js";
import { checkOutputs, givenPath } from "../../../../core/outputPaths.js";
import type { SceneGraph } from "../../../../scenegraph/types.js";

export function registerGraph(program: Command): void {
  const cmd = program
    .command("graph")
    .description("build a scene graph (nodes, relations, evidence) from a frame bundle")
    .argument("<bundle>", "frame bundle directory");
  addSchemaFlags(cmd, GraphPipelineOptionsSchema, GRAPH_PIPELINE_FLAGS)
    .requiredOption("-o, --out <file>", "scene-graph JSON (esi3d-graph/1, docs/scene-graph.md)")
    .option("--diagnosis <file>", "also write the quality diagnosis against the ground truth (JSON; needs the bundle's task record)")
    .option("--ply <file>", "also write the graph's point cloud as PLY, each point's node in the int property \"node\" (-1 = in no node; docs/exports.md)")
    .option(
      "--conceptgraphs <dir>",
      `also write a ConceptGraphs export: the object map its scripts load (${CONCEPTGRAPHS_FILES.map}), ${CONCEPTGRAPHS_FILES.nodes}, ${CONCEPTGRAPHS_FILES.edges} (docs/exports.md)`,
    )
    .action(async (bundleDir: string, opts: { out: string; diagnosis?: string; ply?: string; conceptgraphs?: string }) => {
      const options = parseSchemaFlags(cmd, GraphPipelineOptionsSchema, GRAPH_PIPELINE_FLAGS);
      // every output is checked before the graph is built, so a wrong path fails in a second, not after the work
      checkOutputs(
        [{ what: "<bundle>", path: bundleDir }, ...givenPath("--vggt-model", options.vggt.modelPath)],
        [
          { what: "--out", path: opts.out },
          ...givenPath("--diagnosis", opts.diagnosis),
          ...givenPath("--ply", opts.ply),
          ...givenPath("--conceptgraphs", opts.conceptgraphs),
        ],
      );
      checkWritable(opts.out, "file");
      if (opts.diagnosis) checkWritable(opts.diagnosis, "file");
      if (opts.ply) checkWritable(opts.ply, "file");
      if (opts.conceptgraphs) checkWritable(opts.conceptgraphs, "dir");
      // the pipeline is loaded here, on use: `graph --help` and a usage error do not pay for it
      const [{ readBundle }, { requireTask }, { graphOfBundle, masksForBundle }, { diagnoseNodes }, { writePly }] = await Promise.all([
        import("../../../../core/bundle/io.js"),
        import("../../../../core/bundle/freeTask.js"),
        import("../../../../scenegraph/pipeline.js"),
        import("../../../../scenegraph/diagnosis.js"),
        import("../../../../reconstruct/ply.js"),
      ]);
      const bundle = readBundle(bundleDir);
      if (opts.diagnosis) requireTask(bundle.manifest, bundleDir, "--diagnosis (the ground truth to diagnose against)");
      const m0 = masksForBundle(bundle, options, cmd.getOptionValueSource("masks") === "cli");
      if (m0.note) process.stderr.write(`graph: ${m0.note}\n`);
      // without --diagnosis only the summary line's node metrics are shown: the true relations (a third of
      // a graph's time) are left out
      const r = await graphOfBundle(bundle, m0.options, { log: (m) => process.stderr.write(`vggt: ${m}\n`), diagnose: opts.diagnosis !== undefined });
      for (const note of r.notes) process.stderr.write(`graph: ${note}\n`);
      const task = bundle.manifest.task;
      writeJsonAtomic(opts.out, r.graph);
      if (opts.diagnosis && r.diagnosis) writeJsonAtomic(opts.diagnosis, r.diagnosis);
      if (opts.ply) writePly(r.cloud, opts.ply, { nodes: pointNodes(r.cloud.count, r.graph, r.members) });
      if (opts.conceptgraphs) writeConceptGraphs(opts.conceptgraphs, r.graph, r.cloud, r.members);
      const m = r.diagnosis?.metrics ?? (task ? diagnoseNodes({ graph: r.graph, members: r.members, cloud: r.cloud, task, bundle }) : undefined);
      // a changing world's memory: what stayed where a moved or removed object was, and what the diff saw change
      const stale = m?.stale ? `, ${m.stale} stale` : "";
      const quality = m
        ? ` (node F1 ${fix(m.f1_observed)} on observed objects, ${m.duplicates} duplicate(s), ${m.hallucinated} hallucinated${stale})`
        : " (no task record: no ground truth to diagnose against)";
      process.stdout.write(`wrote ${opts.out}: ${r.graph.nodes.length} nodes, ${r.graph.relations.length} relations${quality}${changesLine(r.graph)}\n`);
    });
}

/** A graph of a changing world's phases: how it remembers them, and for a diff the changes it names by kind. */
function changesLine(graph: SceneGraph): string {
  const t = graph.time;
  if (!t) return "";
  if (t.mode === "fuse") return `; ${t.phases.length} phases fused`;
  const counts = new Map<string, number>();
  for (const c of t.changes) counts.set(c.change, (counts.get(c.change) ?? 0) + 1);
  const parts = [...counts].map(([k, n]) => `${n} ${k}`);
  return `; ${t.phases.length} phases diffed: ${parts.length ? parts.join(", ") : "no change seen"}`;
}
