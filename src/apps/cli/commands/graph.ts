import type { Command } from "commander";
import { join } from "node:path";
import { readBundle } from "../../../../bridge/bundle/io.js";
import { toConceptGraphs } from "../../../../scenegraph/export.js";
import { graphOfBundle, GRAPH_PIPELINE_FLAGS, GraphPipelineOptionsSchema, masksForBundle } from "../../../../scenegraph/pipeline.js";
import { requireTask } from "../../../../bridge/bundle/freeTask.js";
import { addSchemaFlags, parseSchemaFlags } from "../../../core/flags.js";
import { checkWritable, writeJsonAtomic } from "../../../core/fs.js";
import { fix } from "../../../core/table.js";

export function registerGraph(program: Command): void {
  const cmd = program.command("graph").description("build a scene graph (nodes, relations, evidence) from a frame bundle").argument("<bundle>", "frame bundle directory");
  addSchemaFlags(cmd, GraphPipelineOptionsSchema, GRAPH_PIPELINE_FLAGS)
    .requiredOption("-o, --out <file>", "scene-graph JSON (esi3d-graph/1, docs/scene-graph.md)")
    .option("--diagnosis <file>", "also write the quality diagnosis against the ground truth (JSON; needs the bundle's task record)")
    .option("--conceptgraphs <dir>", "also write a ConceptGraphs-compatible export (scene_graph.json, cfslam_object_relations.json)")
    .action(async (bundleDir: string, opts: { out: string; diagnosis?: string; conceptgraphs?: string }) => {
      const options = parseSchemaFlags(cmd, GraphPipelineOptionsSchema, GRAPH_PIPELINE_FLAGS);
      // every output is checked before the graph is built, so a wrong path fails in a second, not after the work
      checkWritable(opts.out, "file");
      if (opts.diagnosis) checkWritable(opts.diagnosis, "file");
      if (opts.conceptgraphs) checkWritable(opts.conceptgraphs, "dir");
      const bundle = readBundle(bundleDir);
      if (opts.diagnosis) requireTask(bundle.manifest, bundleDir, "--diagnosis (the ground truth to diagnose against)");
      const m0 = masksForBundle(bundle, options, cmd.getOptionValueSource("masks") === "cli");
      if (m0.note) process.stderr.write(`graph: ${m0.note}\n`);
      const r = await graphOfBundle(bundle, m0.options, { log: (m) => process.stderr.write(`vggt: ${m}\n`) });
      for (const note of r.notes) process.stderr.write(`graph: ${note}\n`);
      const diagnosis = r.diagnosis;
      writeJsonAtomic(opts.out, r.graph);
      if (opts.diagnosis && diagnosis) writeJsonAtomic(opts.diagnosis, diagnosis);
      if (opts.conceptgraphs) {
        const cg = toConceptGraphs(r.graph);
        writeJsonAtomic(join(opts.conceptgraphs, "scene_graph.json"), cg.nodes);
        writeJsonAtomic(join(opts.conceptgraphs, "cfslam_object_relations.json"), cg.edges);
      }
      const m = diagnosis?.metrics;
      const quality = m ? ` (node F1 ${fix(m.f1_observed)} on observed objects, ${m.duplicates} duplicate(s), ${m.hallucinated} hallucinated)` : " (no task record: no ground truth to diagnose against)";
      process.stdout.write(`wrote ${opts.out}: ${r.graph.nodes.length} nodes, ${r.graph.relations.length} relations${quality}\n`);
    });
}
