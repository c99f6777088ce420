/**
 * items.jsonl: one line per finished item, appended and fsynced one at a time, so a run killed at any
 * moment loses at most the items in flight. A reader tolerates a torn last line; before appending again,
 * a resumed run cuts the file back to its last complete line.
 */
import { ACTION_VOCABULARIES } from "../../core/task/actions.js";
import { LABEL_MODES, MASK_MODES } from "../../scenegraph/options.js";
import { closeSync, existsSync, fsyncSync, openSync, readFileSync, statSync, ftruncateSync, writeSync } from "node:fs";
import * as z from "zod";
import { InputError, inputErrorFromZod } from "../../core/errors.js";
import { pathError } from "../../core/fs.js";
import { SOURCES } from "../../reconstruct/options.js";
import { INSTANCE_MODES } from "../../scenegraph/options.js";
import { ANSWER_MATCHES, GRAPH_FORMATS } from "../prompt/formats.js";
import { ANSWER_STATUSES } from "../reason/types.js";
import { INVALID_ACTION_POLICIES } from "../reason/active/options.js";
import { STOP_REASONS } from "../reason/active/stopping.js";
import { ITEM_LOG_FIELDS } from "./itemLog.js";
import { TASK_HASH_PATTERN } from "./taskHash.js";
import { RUN_PARADIGMS } from "./config.js";

const finite = () => z.number().finite();

/** An agent pose (core/math/camera.ts AgentPose): camera centre (world, Z up, m), yaw and pitch (rad). */
export const AgentPoseSchema = z.object({ position: z.tuple([finite(), finite(), finite()]), yaw: finite(), pitch: finite() }).strict();

/** One step of an active episode: what the agent saw, said and did. */
const ActiveStepSchema = z
  .object({
    step: z.number().int().min(1).describe("1-based; the agent decided while looking at view step-1"),
    requested_action: z.string().describe("the action the agent asked for (raw text for an LLM)"),
    valid: z.boolean().describe("whether the requested action was a valid one (after the re-prompt, for an LLM)"),
    action: z
      .string()
      .nullable()
      .describe(
        "the action executed after this step: a camera move, a manipulation as canonical text ('put_on(n3, table)'), 'stop', or null (the episode ended, an invalid action left the agent in place, or the world changed: see blocked)",
      ),
    blocked: z
      .boolean()
      .nullable()
      .describe(
        "whether the executed action did not happen (a blocked move: the pose stayed; a failed manipulation: the world stayed); null when none was executed. false with a null action: after this step the world changed to its next phase while no one looked (action_result says which), a changing world's step that no agent chose",
      ),
    action_result: z
      .string()
      .nullable()
      .optional()
      .describe("what came of the executed action: 'ok', or why it did not happen (ESI's later runner's action_result); null when none was executed"),
    acted_on: z
      .array(z.number().int())
      .optional()
      .describe("a manipulation that happened: the instance ids of the objects it acted on, in the action's order (a replay names them)"),
    pose: AgentPoseSchema.describe("the pose of the view the agent decided on"),
    status: z.enum(ANSWER_STATUSES),
    answer: z.string().nullable().describe("canonical answer at this step, null for 'not sure' or none"),
    confidence: z.number().nullable(),
    correct: z.boolean().nullable().describe("whether the answer at this step is right (null: not sure / unparsed)"),
    reasoning: z.string(),
    trace: z.array(z.string()).describe("program trace (offline agents) or raw replies (LLM agents)"),
    reprompted: z.boolean(),
    prompt_file: z.string().nullable().optional().describe("LLM agents: this step's request, prompts/<hash>.json (docs/logs.md); null for offline agents"),
    graph_nodes: z.number().int().min(0).nullable().describe("3D arms: nodes of the graph the agent decided on"),
    flagged_duplicates: z.number().int().min(0).nullable().describe("3D arms: nodes the graph itself flags possible_duplicate_of"),
    duplicates: z.number().int().min(0).nullable().describe("3D arms: duplicate nodes by the diagnosis against the truth"),
    relevant_seen: z.boolean().describe("every object the question needs has been seen in some view so far (>= MIN_MASK_AREA_PX pixels)"),
    time_ms: z.number().min(0),
  })
  .strict();
export type ActiveStep = z.infer<typeof ActiveStepSchema>;

/**
 * Whether the world changed to its next phase after this step (a changing world: the runner moves it on instead of
 * executing an action). Such a step is the only one that executed something with no action: an invalid action or a
 * stop executes nothing (blocked null), a move or a manipulation has its action.
 */
export const worldChangedAfter = (s: Pick<ActiveStep, "action" | "blocked">): boolean => s.action === null && s.blocked === false;

/** What a step after which the world changed says of it (the environment's words, kept as its action_result). */
export const worldChangeText = (s: Pick<ActiveStep, "action_result">): string => s.action_result ?? "the world changed";

/** The active part of an item record: the whole episode. */
const ActiveEpisodeSchema = z
  .object({
    agent: z.string(),
    max_steps: z.number().int().min(1),
    threshold: z.number().min(0).max(1),
    min_steps: z.number().int().min(0),
    invalid_action: z.enum(INVALID_ACTION_POLICIES),
    actions: z.enum(ACTION_VOCABULARIES).optional().describe("the agent's vocabulary (--actions); absent in records written before the hands: camera"),
    stop_reason: z.enum(STOP_REASONS),
    steps_used: z.number().int().min(0),
    answer_step: z.number().int().min(1).nullable().describe("the step whose answer is the final one (null: none)"),
    forced_choice: z.boolean().describe("the last answer was not conclusive and a forced-choice prompt gave the final one"),
    steps: z.array(ActiveStepSchema),
  })
  .strict();
export type ActiveEpisode = z.infer<typeof ActiveEpisodeSchema>;

/** Repeated sampling of one item (`--samples k`): every sample's answer and how many agree with the majority. */
const SamplingSchema = z
  .object({
    k: z.number().int().min(2),
    answers: z.array(z.string().nullable()).describe("each sample's canonical answer, in sample order (null: no parsed answer)"),
    agreement: z.number().min(0).max(1).describe("share of the k samples whose answer is the majority answer (0 when no sample parsed)"),
  })
  .strict();

/** Circular evaluation (`--circular`): the item asked once per rotation of its options. */
export const CircularSchema = z
  .object({
    rotations: z.number().int().min(2).describe("how many rotations were asked: one per option (rotation r lists the options from index r, wrapping)"),
    answers: z.array(z.string().nullable()).describe("each rotation's canonical answer, an option's text (null: no answer)"),
    correct: z
      .array(z.boolean().nullable())
      .describe("whether each rotation's answer is right (null: no answer); the item's correct is true only when every one is"),
  })
  .strict();

const ARMS = ["2d", "3d", "shortcut"] as const;
export type Arm = (typeof ARMS)[number];

/** One evaluated item: a line of items.jsonl. Readers parse every line through this schema. */
export const ItemRecordSchema = z
  .object({
    key: z
      .string()
      .min(1)
      .describe(
        "task|paradigm|arm (2d, shortcut, or 3d:<source label>), and |<reasoner> when the run has several reasoners (not on the shared shortcut arm): unique in a run",
      ),
    task_id: z.string().min(1),
    task_hash: z
      .string()
      .regex(TASK_HASH_PATTERN)
      .optional()
      .describe(
        "the task's content: sha256 of its canonical JSON, first 16 hex digits (src/eval/taskHash.ts); compare refuses runs whose shared task ids differ in it. Records before this field have none",
      ),
    subcategory: z.string(),
    category: z.string(),
    paradigm: z.enum(RUN_PARADIGMS),
    arm: z.enum(ARMS),
    source: z.enum(SOURCES).nullable().describe("point-cloud source of the 3D arm, null for the 2D and shortcut baselines"),
    noise_level: z.number().nullable(),
    reasoner: z.string(),
    masks: z.enum(MASK_MODES).nullable(),
    instances: z.enum(INSTANCE_MODES).nullable(),
    labels: z
      .enum(LABEL_MODES)
      .default("oracle")
      .describe("mask labels the arm read: oracle (true categories) or appearance (scenegraph/appearance.ts); records before this field read oracle"),
    format: z.enum(GRAPH_FORMATS).nullable(),
    uncertainty: z.boolean().nullable(),
    question: z.string(),
    answer_format: z.string(),
    options: z.array(z.string()),
    chance: z
      .number()
      .min(0)
      .max(1)
      .optional()
      .describe(
        "structured answer formats: what a uniform guess scores (each part, step or pair among its own options); absent for the plain formats (1 over the options) and in records before it",
      ),
    truth: z.string(),
    status: z.enum(ANSWER_STATUSES),
    answer: z.string().nullable(),
    match: z
      .enum(ANSWER_MATCHES)
      .nullable()
      .optional()
      .describe(
        "how the answer was matched to its option: text (the option's own text, an integer's value; offline programs), letter (the letter of a lettered option, --option-labels letters), fuzzy (a yes/no synonym, or an option's text inside a longer reply; listed in the report); null without an answer; absent in records before this field",
      ),
    confidence: z.number().nullable(),
    confidence_problem: z
      .string()
      .optional()
      .describe("set when the reply stated a confidence outside [0, 1] that is not a whole percentage (e.g. 1.7): confidence is then null"),
    correct: z.boolean().nullable(),
    mra: z.number().min(0).max(1).nullable().describe("VSI-Bench mean relative accuracy for integer answers (0 when unparsed)"),
    structured: z
      .object({
        answer: z.unknown().describe("the parsed answer in its form: {kind, order} | {kind, pairs} | {kind, steps} | {kind, parts}"),
        parts_correct: z.number().int().min(0).nullable(),
        parts_total: z.number().int().min(0).nullable(),
      })
      .strict()
      .optional()
      .describe(
        "structured answer formats (any_ordering, assignment, step_sequence, parts), when parsed: the answer read from the reply and the parts right (null for orderings); correct is ESI's exact match of the whole",
      ),
    prompt_hash: z.string().nullable(),
    ...ITEM_LOG_FIELDS,
    raw: z.array(z.string()),
    method: z.string(),
    reprompted: z.boolean(),
    views: z.number().int().min(0),
    graph_quality: z.record(z.string(), z.number().nullable()).nullable(),
    timings_ms: z
      .record(z.string(), z.number())
      .describe(
        "wall time (ms) of each stage the item ran: generate (its task's generation, when this run generated it), render, truth_relations (the task's true relations, computed once per task and thread: near 0 in its later units), cloud (0 in an arm whose cloud an earlier arm of its unit built: arms that differ only in labels share one cloud, paid by the first), graph, diagnose, reason, model_call_<k>; an active episode's render, graph, agent, episode",
      ),
    error: z
      .object({
        class: z.string().min(1).describe("LlmError:<kind>[:<HTTP status>], empty_reply, invalid_reply, truncated_reply, or the name of the error thrown"),
        message: z.string(),
      })
      .strict()
      .optional()
      .describe("why the item has no answer (status error, empty or invalid): the failure's class and its redacted message"),
    proxy: z.literal(true).optional().describe("set when the task was rendered as a proxy scene (bridge/esibench/proxy.ts): the result is about the proxy"),
    simulator: z.string().optional().describe("the task's simulator, on proxy records"),
    scale_oracle: z
      .literal(true)
      .optional()
      .describe(
        "set when the 3D arm's metric scale came from the bundle's (simulator's) depth, ground truth a real agent would not have (vggt, one view, no floor found: reconstruct/align.ts camera0+depth)",
      ),
    active: ActiveEpisodeSchema.optional().describe("paradigm active: the episode, step by step"),
    sampling: SamplingSchema.optional().describe("--samples k > 1: the k sampled answers and their majority vote (answer is the majority)"),
    circular: CircularSchema.optional().describe(
      "--circular, on items with a list of 2 or more options (not structured formats, not the active paradigm): every rotation's answer; answer is rotation 0's, status parsed only when every rotation answered",
    ),
  })
  .strict();
export type ItemRecord = z.infer<typeof ItemRecordSchema>;

/** An item's key; `reasoner` only when the run has several (src/eval/config.ts reasonerKeyPart). */
export function itemKey(taskId: string, paradigm: string, arm: Arm, source: string | null, reasoner: string | null = null): string {
  return `${taskId}|${paradigm}|${arm === "3d" ? `3d:${source}` : arm}${reasoner === null ? "" : `|${reasoner}`}`;
}

/** The reasoner part of an item key (null for a single-reasoner run's keys and the shared shortcut arm). */
export function reasonerOfKey(key: string): string | null {
  const parts = key.split("|");
  // a reasoner name holds no '|' (src/reason/spec.ts): after the arm part, the last part is the reasoner
  return parts.length >= 4 && /^(2d|shortcut|3d:.+)$/.test(parts.at(-2)!) ? parts.at(-1)! : null;
}

/**
 * Reads every complete record; a torn last line (a kill mid-write) is ignored. A key seen twice (two
 * writers on one run, before runs were locked) keeps its first record: the rest are dropped and counted,
 * so no summary counts an item twice.
 */
export function readRecords(file: string): { records: ItemRecord[]; tornBytes: number; duplicates: number } {
  if (!existsSync(file)) return { records: [], tornBytes: 0, duplicates: 0 };
  const text = readFileSync(file, "utf8");
  const lastNl = text.lastIndexOf("\n");
  const complete = lastNl >= 0 ? text.slice(0, lastNl) : "";
  const records: ItemRecord[] = [];
  const seen = new Set<string>();
  let duplicates = 0;
  const lines = complete.split("\n");
  lines.forEach((line, i) => {
    if (!line.trim()) return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (e) {
      // only a kill can tear a line, and only the last one; anything else is corruption
      if (i < lines.length - 1) throw new InputError(`${file}: line ${i + 1} is not valid JSON (${(e as Error).message})`, { file });
      return;
    }
    const r = ItemRecordSchema.safeParse(value);
    if (!r.success) throw inputErrorFromZod(r.error, { file, what: `line ${i + 1} is not an item record` });
    if (seen.has(r.data.key)) duplicates++;
    else {
      seen.add(r.data.key);
      records.push(r.data);
    }
  });
  return { records, tornBytes: Buffer.byteLength(text.slice(lastNl + 1)), duplicates };
}

export class RecordWriter {
  private fd: number;

  constructor(readonly file: string) {
    try {
      this.fd = openSync(file, "a+");
    } catch (e) {
      throw pathError(e, file, "open for appending");
    }
    // cut a torn last line so the next record starts on a fresh line
    const size = statSync(file).size;
    if (size > 0) {
      const text = readFileSync(file, "utf8");
      const keep = text.lastIndexOf("\n") + 1;
      if (Buffer.byteLength(text.slice(0, keep)) !== size) ftruncateSync(this.fd, Buffer.byteLength(text.slice(0, keep)));
    }
  }

  append(r: ItemRecord): void {
    try {
      writeSync(this.fd, JSON.stringify(r) + "\n");
      fsyncSync(this.fd);
    } catch (e) {
      // a full disk: the line may be torn, which the next reader drops and the resume rewrites
      throw pathError(e, this.file, "append to");
    }
  }

  close(): void {
    closeSync(this.fd);
  }
}
