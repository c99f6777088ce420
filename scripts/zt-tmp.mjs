const { readBundle } = await import("../dist/core/bundle/io.js");
const { graphOfBundle, masksForBundle } = await import("../dist/scenegraph/pipeline.js");
const { GraphPipelineOptionsSchema } = await import("../dist/scenegraph/pipelineOptions.js");
const b = readBundle("/tmp/esi3d-bench-29017/startup-single-bundle");
const m0 = masksForBundle(b, GraphPipelineOptionsSchema.parse({}), false);
const t = performance.now();
const r = await graphOfBundle(b, m0.options, { diagnose: false });
console.log((performance.now() - t).toFixed(0), JSON.stringify(r.graph.timings_ms));
