// Runs an ONNX graph once on ONNX Runtime's CPU provider (esi3d's onnxruntime-node), for export_vggt.py --check
// on machines without Python's onnxruntime (Debian has none).
//   node models/ort_run.mjs MODEL INPUT.f32 S,3,H,W OUTDIR name...
// INPUT.f32 is little-endian float32 for "input_images"; each named output is written as OUTDIR/<name>.f32
// (float32) and OUTDIR/<name>.shape (comma-separated dims).
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as ort from "onnxruntime-node";

const [model, input, shape, outDir, ...names] = process.argv.slice(2);
if (!model || !input || !shape || !outDir || names.length === 0) {
  process.stderr.write("usage: node models/ort_run.mjs MODEL INPUT.f32 S,3,H,W OUTDIR output-name...\n");
  process.exit(2);
}
const dims = shape.split(",").map(Number);
const buf = readFileSync(input);
const data = new Float32Array(buf.buffer, buf.byteOffset, buf.byteLength / 4);
const session = await ort.InferenceSession.create(model, { executionProviders: ["cpu"] });
const result = await session.run({ input_images: new ort.Tensor("float32", data, dims) }, names);

for (const n of names) {
  const t = result[n];
  if (t.type !== "float32") throw new Error(`output ${n} is ${t.type}; this runner handles float32 (export_vggt.py exports fp32)`);
  const f = t.data;
  writeFileSync(join(outDir, `${n}.f32`), Buffer.from(f.buffer, f.byteOffset, f.byteLength));
  writeFileSync(join(outDir, `${n}.shape`), t.dims.join(","));
}
await session.release();
