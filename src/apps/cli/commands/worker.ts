/** `esi3d worker --queue URL`: serves queue runs (src/eval/queue/worker.ts) until SIGINT or SIGTERM. */
import type { Command } from "commander";
import { addSchemaFlags, parseSchemaFlags } from "../../../../core/flags.js";
import { PACKAGE_VERSION } from "../../../../core/version.js";
import { WORKER_FLAGS, WorkerOptionsSchema } from "../../../eval/queue/options.js";

export function registerWorker(program: Command): void {
  const cmd = addSchemaFlags(
    program.command("worker").description("take the jobs of `esi3d run --queue` runs from Redis (any machine that reaches Redis and the shared store)"),
    WorkerOptionsSchema,
    WORKER_FLAGS,
  );
  cmd.action(async () => {
    const options = parseSchemaFlags(cmd, WorkerOptionsSchema, WORKER_FLAGS);
    const log = (l: string) => process.stderr.write(l + "\n");
    // the queue's packages (bullmq, ioredis) load only when a worker starts, not for `esi3d --help`
    const { startQueueWorker } = await import("../../../eval/queue/worker.js");
    const worker = await startQueueWorker(options, PACKAGE_VERSION, log);
    let outage: Error | null = null;
    await new Promise<void>((resolve) => {
      const stop = () => {
        process.off("SIGINT", stop);
        process.off("SIGTERM", stop);
        log("worker: finishing the jobs in flight");
        resolve();
      };
      process.on("SIGINT", stop);
      process.on("SIGTERM", stop);
      // a Redis gone for longer than the worker waits ends it, in one line (the command's error)
      worker.failed.catch((e: Error) => {
        outage = e;
        process.off("SIGINT", stop);
        process.off("SIGTERM", stop);
        resolve();
      });
    });
    await worker.close();
    if (outage) throw outage;
  });
}
