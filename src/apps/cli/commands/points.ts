import type { Command } from "commander";
import { readBundle } from "../../../../core/bundle/io.js";
import { writePly, writeXyzF32 } from "../../../../reconstruct/ply.js";
import { buildPointCloud } from "../../../../reconstruct/index.js";
import { CLOUD_FLAGS, CloudOptionsSchema } from "../../../../reconstruct/options.js";
import { writeVggtCameras } from "../../../../reconstruct/vggt/cameras.js";
import { addSchemaFlags, parseSchemaFlags } from "../../../../core/flags.js";
import { InputError } from "../../../../core/errors.js";
import { checkWritable } from "../../../../core/fs.js";
import { checkOutputs, givenPath } from "../../../../core/outputPaths.js";

const vggtLog = (m: string) => process.stderr.write(`vggt: ${m}\n`);

export function registerPoints(program: Command): void {
  const cmd = program
    .command("points")
    .description("reconstruct a point cloud from a frame bundle and write it as PLY")
    .argument("<bundle>", "frame bundle directory");
  addSchemaFlags(cmd, CloudOptionsSchema, CLOUD_FLAGS)
    .requiredOption("-o, --out <file>", "output PLY (binary little endian, uchar colours)")
    .option("--xyz <file>", "also write raw float32 x,y,z (the peers' input format)")
    .option("--cameras <file>", "vggt: also write the decoded cameras as JSON (per view: camera-from-world 3x4, fx fy cx cy, image size)")
    .action(async (bundleDir: string, opts: { out: string; xyz?: string; cameras?: string }) => {
      const options = parseSchemaFlags(cmd, CloudOptionsSchema, CLOUD_FLAGS);
      if (opts.cameras && options.source !== "vggt") throw new InputError(`--cameras: only --source vggt decodes cameras (got --source ${options.source})`);
      checkOutputs(
        [{ what: "<bundle>", path: bundleDir }, ...givenPath("--vggt-model", options.vggt.modelPath)],
        [{ what: "--out", path: opts.out }, ...givenPath("--xyz", opts.xyz), ...givenPath("--cameras", opts.cameras)],
      );
      checkWritable(opts.out, "file");
      if (opts.xyz) checkWritable(opts.xyz, "file");
      if (opts.cameras) checkWritable(opts.cameras, "file");
      const bundle = readBundle(bundleDir);
      const t = Date.now();
      const cloud = await buildPointCloud(bundle, options, { log: vggtLog });
      writePly(cloud, opts.out);
      if (opts.xyz) writeXyzF32(cloud, opts.xyz);
      if (opts.cameras) writeVggtCameras(cloud, opts.cameras);
      const extra = ["alignScale", "alignRmsM", "provider"].filter((k) => cloud.meta[k] !== undefined).map((k) => `${k}=${String(cloud.meta[k])}`);
      process.stdout.write(
        `wrote ${opts.out}: ${cloud.count} points from ${bundle.views.length} views (source ${cloud.source}, ${Date.now() - t} ms)${extra.length ? "; " + extra.join(", ") : ""}\n`,
      );
    });
}
