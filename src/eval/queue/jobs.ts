/**
 * The jobs of a queue run. A unit (task x paradigm) is one job on the cpu queue (or on the reconstruct
 * queue when the run has a VGGT source); with a model reasoner it is the child of one answer job on the
 * llm queue (a BullMQ flow), so the answers wait for the unit's graphs. Job ids are hashes of what the job
 * computes, so adding a job twice is a no-op: that is how a resumed run re-enqueues. Payloads carry
 * names only: the run's configuration, tasks and graphs are files in the shared store.
 */
import { createHash } from "node:crypto";
import type { Paradigm } from "../../../core/bundle/schema.js";
import type { ItemRecord } from "../records.js";
import type { UnitResult } from "../pipeline.js";

/** Queue names (BullMQ forbids ':' in them). */
export const QUEUES = { cpu: "esi3d-cpu", reconstruct: "esi3d-reconstruct", llm: "esi3d-llm" } as const;

export interface QueueJobData {
  /** the esi3d that enqueued the job: a worker of another version refuses it */
  version: string;
  runId: string;
  /** the shared store: config.json, tasks/, graphs/ */
  store: string;
  taskId: string;
  paradigm: Paradigm;
}

export interface UnitJobData extends QueueJobData {
  /** item keys already recorded when the job was first enqueued (their arms are skipped) */
  done: string[];
  /** how long the producer took to generate the task (ms), for the records' timings_ms.generate; absent for a task read back from the store */
  generateMs?: number;
}

/** What a unit job returns: its offline records, and the graphs (by name in the store) left to the model. */
export interface UnitJobResult {
  records: ItemRecord[];
  pending: UnitResult["pending"];
  graphs: Array<{ source: string; scaleOracle: boolean }>;
  timings: Record<string, number>;
  views: number;
  notes: string[];
}

/** What an answer job returns: every record of its unit, and the unit's notes passed on (the producer prints each once). */
export interface AnswerJobResult {
  records: ItemRecord[];
  notes: string[];
}

const hash = (...parts: string[]) => createHash("sha256").update(parts.join("\u0000")).digest("hex").slice(0, 32);

/** A unit's job id: the run, the task, the paradigm, the arms (sources) and the seed. */
export function unitJobId(runId: string, taskId: string, paradigm: string, arms: string[], seed: string): string {
  return `u${hash(runId, taskId, paradigm, arms.join(","), seed)}`;
}

/** A unit's answer job id: the unit's parts and the model. */
export function answerJobId(runId: string, taskId: string, paradigm: string, arms: string[], model: string, seed: string): string {
  return `a${hash(runId, taskId, paradigm, arms.join(","), model, seed)}`;
}
