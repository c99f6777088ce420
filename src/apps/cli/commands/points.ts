import type { Command } from "commander";
import { readBundle } from "../../../../bridge/bundle/io.js";
import { writePly, writeXyzF32 } from "../../../../reconstruct/ply.js";
import { buildPointCloud, SOURCES, type CloudOptions } from "../../../../reconstruct/index.js";
import { choiceOption, numberOption } from "../options.js";

export function addCloudOptions(cmd: Command): Command {
  return cmd
    .option("--source <source>", "point-cloud source: gt (depth back-projection), vggt (ONNX model), noisy (controlled error model)", choiceOption("--source", SOURCES), "gt")
    .option("--noise-level <x>", "noisy: overall error level 0..1 scaling the vggt-like preset", numberOption("--noise-level", 0, 1), 0.5)
    .option("--noise-seed <seed>", "noisy: seed of the error model", "0")
    .option("--vggt-model <path>", "vggt: the .onnx file (or a directory holding vggt.onnx); default $ESI3D_VGGT_MODEL")
    .option("--device <device>", "vggt: execution provider auto|cuda|cpu", choiceOption("--device", ["auto", "cuda", "cpu"] as const), "auto")
    .option("--vggt-points <from>", "vggt: points from the depth head with decoded cameras (depth) or the point-map head (pointmap)", choiceOption("--vggt-points", ["depth", "pointmap"] as const), "depth")
    .option("--conf-percentile <p>", "vggt: drop the lowest p % of confidences", numberOption("--conf-percentile", 0, 100), 50)
    .option("--conf-threshold <c>", "vggt: instead, keep confidence >= c", numberOption("--conf-threshold", 0, 1e9))
    .option("--align <mode>", "vggt: sim3 (align predicted cameras to the known poses) or none (VGGT's frame)", choiceOption("--align", ["sim3", "none"] as const), "sim3");
}

export function cloudOptionsFrom(opts: Record<string, unknown>): CloudOptions {
  return {
    source: opts.source as CloudOptions["source"],
    noiseLevel: opts.noiseLevel as number,
    noiseSeed: opts.noiseSeed as string,
    vggt: {
      modelPath: opts.vggtModel as string | undefined,
      device: opts.device as "auto" | "cuda" | "cpu",
      points: opts.vggtPoints as "depth" | "pointmap",
      confPercentile: opts.confPercentile as number,
      confThreshold: opts.confThreshold as number | undefined,
      align: opts.align as "sim3" | "none",
      log: (m: string) => process.stderr.write(`vggt: ${m}\n`),
    },
  };
}

export function registerPoints(program: Command): void {
  addCloudOptions(
    program
      .command("points")
      .description("reconstruct a point cloud from a frame bundle and write it as PLY")
      .argument("<bundle>", "frame bundle directory"),
  )
    .requiredOption("-o, --out <file>", "output PLY (binary little endian, uchar colours)")
    .option("--xyz <file>", "also write raw float32 x,y,z (the peers' input format)")
    .action(async (bundleDir: string, opts: Record<string, unknown>) => {
      const bundle = readBundle(bundleDir);
      const t = Date.now();
      const cloud = await buildPointCloud(bundle, cloudOptionsFrom(opts));
      writePly(cloud, opts.out as string);
      if (opts.xyz) writeXyzF32(cloud, opts.xyz as string);
      const extra = ["alignScale", "alignRmsM", "provider"].filter((k) => cloud.meta[k] !== undefined).map((k) => `${k}=${String(cloud.meta[k])}`);
      process.stdout.write(`wrote ${opts.out as string}: ${cloud.count} points from ${bundle.views.length} views (source ${cloud.source}, ${Date.now() - t} ms)${extra.length ? "; " + extra.join(", ") : ""}\n`);
    });
}
