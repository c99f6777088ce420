/**
 * LLM agents for the active paradigm (`openai:M`, `gemini:M`, any OpenAI-compatible --base-url), with
 * ESI-Bench's per-step contract (ESI-Bench's released active runner's
 * `collect_contents` and `build_system_prompt`):
 *   system: the role ("an embodied spatial reasoning expert controlling a camera"), the rules, the JSON
 *           format {"action","answer","reasoning","confidence"}, the choices (always with "not sure"), the
 *           actions (with `stop`), "Confidence threshold to conclude: <threshold>";
 *   user:   "Action history so far:" (one line per step: action, answer, confidence, result, reasoning);
 *           2D/VLM arm: the last HISTORY_IMAGES past views ("[Past view from step k]") and the current one
 *           ("[CURRENT VIEW - step n]"); 3D arms: the graph of every view so far in --format (with
 *           --uncertainty), the objects in the current view, and what is still unexplored (unknown space
 *           per direction, from an occupancy grid of the depth seen so far); then the task.
 * Every call goes through the client's response cache, so a resumed episode replays its earlier steps.
 * An unreadable reply or (policy `reprompt`) an invalid action gets one re-prompt with a reminder (the
 * paper, Appendix N); what is still unusable is returned with action null for the loop's policy.
 */
import type { FrameBundle } from "../../../core/bundle/io.js";
import { encodePng } from "../../../core/bundle/png.js";
import {
  HEIGHT_STEP_M,
  MANIPULATION_ACTIONS,
  MANIPULATION_USAGE,
  MOVE_STEP_M,
  PITCH_STEP_RAD,
  TURN_STEP_RAD,
  vocabularyActions,
  type ActionVocabulary,
} from "../../../core/task/actions.js";
import type { Task } from "../../../core/task/schema.js";
import type { ChatImage, LlmClient } from "../../llm/types.js";
import { IMAGE_MIME_TYPE } from "../../prompt/images.js";
import { fmt, serializeGraph } from "../../prompt/serialize.js";
import type { AnswerMatch, GraphFormat, OptionLabels } from "../../prompt/formats.js";
import { roomGrid, UNKNOWN, type OccupancyGrid } from "../../../scenegraph/occupancy.js";
import { answerMatchOf, parseJsonLoose, readConfidence, resolveValue } from "../parse.js";
import type { AnswerStatus, ModelCall } from "../types.js";
import { modelCallOf } from "../llm.js";
import { promptLogOf, type PromptTarget } from "../promptFile.js";
import { optionLetter, PROMPT_VERSION } from "../../prompt/templates.js";
import type { InvalidActionPolicy } from "./options.js";
import { NOT_SURE, type ActiveAgent, type AgentContext, type AgentDecision } from "./types.js";

/** ESI released `history_image_window`: the past views the model sees. */
const HISTORY_IMAGES = 5;
/** ESI released `force_final_choice` samples at temperature 0. */
const FORCED_TEMPERATURE = 0;
/** Unexplored space is reported per 45-degree sector around the agent, within this range (m). */
const UNEXPLORED_RANGE_M = 3;
const SECTORS = ["ahead", "ahead-left", "left", "behind-left", "behind", "behind-right", "right", "ahead-right"] as const;

export interface LlmAgentOptions {
  invalidAction: InvalidActionPolicy;
  threshold: number;
  temperature: number;
  format: GraphFormat;
  uncertainty: boolean;
  /** "letters": the choices are lettered and a reply may give the letter; default "none" (the choices' texts only) */
  optionLabels?: OptionLabels;
  /** where the client sends requests (src/reason/llm.ts promptTarget): with it, each decision carries its request as a prompt file */
  target?: PromptTarget;
}

const deg = (r: number) => fmt((r * 180) / Math.PI, 0);

/** The task's options as the agent's prompts list them: quoted texts, lettered ("A. \"text\"") under optionLabels letters. */
const listedOptions = (task: Task, o: LlmAgentOptions): string[] =>
  task.options.map((c, i) => (o.optionLabels === "letters" ? `${optionLetter(i)}. ${JSON.stringify(c)}` : JSON.stringify(c)));

/** The hands' lines of the rules (vocabulary all): how each manipulation is written and what it needs. */
function handsRules(arm: "2d" | "3d"): string[] {
  return [
    `- Hands: ${MANIPULATION_ACTIONS.map((a) => MANIPULATION_USAGE[a]).join(", ")}. X and Y name objects ${arm === "3d" ? "by their node id in the scene graph (e.g. n3) or" : "as"} a category with its colour (\"red mug\"). pick_up holds X (one object at a time; it travels with the camera); put_on and put_inside put X (held, or within reach) on or into Y and physics settles it; put_back returns the held X where it was taken from; open and close a box's lid. You can act only on what is in your current view and within about 1 m; a failed action changes nothing and the history says why.`,
    "- Acting can reveal what looking cannot: open a closed box, lift a cloth (pick_up) to see what is under it, put an object on a slope or on another to watch what physics does.",
  ];
}

function systemPrompt(task: Task, o: LlmAgentOptions, arm: "2d" | "3d", vocabulary: ActionVocabulary): string {
  const choices = [...listedOptions(task, o), JSON.stringify(NOT_SURE)];
  return [
    "You are an embodied spatial reasoning expert controlling a camera in a room. Each step you see what your camera has gathered so far and choose one action to gather more evidence, while giving your current answer.",
    arm === "3d"
      ? "You do not see the images: you get a scene graph built from every view so far (objects with 3D positions and sizes in metres), the objects in your current view, and how much space around you is still unexplored."
      : "You get your current view and your most recent past views as images.",
    "STRICT RULES:",
    `- Actions: ${vocabularyActions(vocabulary).join(", ")}. move_forward/backward/left/right move the camera ${fmt(MOVE_STEP_M)} m along the floor; move_up/move_down raise or lower it ${fmt(HEIGHT_STEP_M)} m; turn_left/turn_right rotate it ${deg(TURN_STEP_RAD)}° about the vertical; turn_up/turn_down tilt it ${deg(PITCH_STEP_RAD)}°; stop ends the episode with your answer. A blocked move leaves the camera where it was.`,
    "- Use move_up with turn_down when a more top-down view is useful; move around objects to see behind them.",
    ...(vocabulary === "all" ? handsRules(arm) : []),
    `- If you need more evidence, answer "${NOT_SURE}" and keep exploring.`,
    `- Answer choices${o.optionLabels === "letters" ? ` (give the letter, or "${NOT_SURE}")` : ""}: ${choices.join(", ")}.`,
    `- Confidence threshold to conclude: ${o.threshold.toFixed(2)}.`,
    'Return exactly one valid JSON object and nothing else: {"action": "<one action>", "answer": "<one choice>", "reasoning": "<short>", "confidence": <0..1>}.',
  ].join("\n");
}

function historyLines(ctx: AgentContext): string {
  if (ctx.history.length === 0) return "Action history so far: none (this is your first step).";
  const lines = ctx.history.map((h) => {
    const result = h.action === null ? "stayed (invalid action)" : h.blocked ? `failed (${h.action_result ?? "blocked"})` : "done";
    return `step ${h.step}: action=${h.action ?? h.requested_action}, answer=${h.answer ?? NOT_SURE}, confidence=${h.confidence ?? "none"}, result=${result}, reasoning=${JSON.stringify(h.reasoning.slice(0, 300))}`;
  });
  return ["Action history so far:", ...lines].join("\n");
}

function png(bundle: FrameBundle, i: number): ChatImage {
  const v = bundle.views[i]!;
  return { mimeType: IMAGE_MIME_TYPE, data: new Uint8Array(encodePng(v.width, v.height, 3, 8, v.rgb)) };
}

/** Unknown space per direction around the agent, from an occupancy grid of the depth seen so far. */
class UnexploredSummary {
  private readonly grid: OccupancyGrid;
  private integrated = 0;
  constructor(task: Task) {
    this.grid = roomGrid(task.room);
  }
  text(ctx: AgentContext): string {
    for (; this.integrated < ctx.bundle.views.length; this.integrated++) {
      const v = ctx.bundle.views[this.integrated]!;
      this.grid.integrate(v.depth, v.width, v.height, v.K, v.E);
    }
    const g = this.grid;
    const total = new Array<number>(8).fill(0),
      unknown = new Array<number>(8).fill(0);
    const [px, py] = ctx.pose.position;
    for (let v = 0; v < g.state.length; v++) {
      const [x, y] = g.centre(v);
      const dx = x - px,
        dy = y - py,
        r = Math.hypot(dx, dy);
      if (r > UNEXPLORED_RANGE_M || r < 1e-6) continue;
      const rel = Math.atan2(dy, dx) - ctx.pose.yaw;
      const s = ((Math.round(rel / (Math.PI / 4)) % 8) + 8) % 8;
      total[s]!++;
      if (g.state[v] === UNKNOWN) unknown[s]!++;
    }
    const parts = SECTORS.map((name, s) => `${name} ${total[s] ? Math.round((100 * unknown[s]!) / total[s]!) : 0}%`);
    const all = g.state.reduce((n, x) => n + (x === UNKNOWN ? 1 : 0), 0);
    return `Unexplored space within ${UNEXPLORED_RANGE_M} m, by direction from your current heading: ${parts.join(", ")}. Overall, ${Math.round((100 * all) / g.state.length)}% of the room's volume has not been observed.`;
  }
}

function currentViewObjects(ctx: AgentContext): string {
  const g = ctx.graph!;
  const here = ctx.bundle.views.length - 1;
  const ids = g.nodes.filter((n) => n.support.some((s) => s.view === here)).map((n) => `${n.id} (${n.label})`);
  return `Objects in your current view: ${ids.length ? ids.join(", ") : "none"}.`;
}

interface StepReply {
  action: string | null;
  requested: string;
  status: AnswerStatus;
  answer: string | null;
  match?: AnswerMatch;
  confidence: number | null;
  reasoning: string;
  problem: string | null;
}

const normalizeAction = (s: string) =>
  s
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, "_")
    .replace(/[^a-z_]/g, "");

/**
 * Reads one step reply: the action, and the answer mapped to a choice ("not sure" = no answer yet). A letter
 * names a choice only when the prompt lettered them (`optionLabels` "letters").
 */
/** The action a reply gives: its text, or a manipulation verb with "object"/"target" fields composed as `verb(object, target)`. */
function requestedActionOf(o: Record<string, unknown>): string {
  const a = typeof o.action === "string" ? o.action : o.action === undefined ? "" : JSON.stringify(o.action);
  const args = [o.object, o.target].filter((x): x is string => typeof x === "string" && x.trim() !== "");
  return args.length && /^[a-z_\s]+$/i.test(a.trim()) ? `${a.trim()}(${args.join(", ")})` : a;
}

function readStepReply(text: string, task: Task, check: (action: string) => string | null, optionLabels: OptionLabels = "none"): StepReply {
  const none: StepReply = { action: null, requested: "", status: "invalid", answer: null, confidence: null, reasoning: "", problem: null };
  const obj = parseJsonLoose(text);
  if (!obj || typeof obj !== "object" || Array.isArray(obj)) return { ...none, problem: "the reply is not a JSON object" };
  const o = obj as Record<string, unknown>;
  const requested = requestedActionOf(o);
  const actionProblem = check(requested);
  const action = actionProblem === null ? requested.trim() : null;
  const confidence = readConfidence(o.confidence) ?? null;
  const reasoning = typeof o.reasoning === "string" ? o.reasoning : "";
  let match: AnswerMatch | undefined;
  let status: AnswerStatus = "parsed",
    answer: string | null = null,
    problem: string | null = actionProblem;
  if (typeof o.answer === "string" && normalizeAction(o.answer) === "not_sure") answer = null;
  else {
    const r = resolveValue(o.answer, { answer_format: task.answer_format, options: task.options, answer_spec: task.answer_spec, optionLabels });
    if ("error" in r) [status, problem] = ["invalid", problem ?? `answer: ${r.error}`];
    else [answer, match] = [r.answer, answerMatchOf(r.match)];
  }
  return {
    action,
    requested,
    status,
    answer,
    ...(match ? { match } : {}),
    confidence: confidence === null ? null : Math.min(1, Math.max(0, confidence)),
    reasoning,
    problem,
  };
}

class LlmAgent implements ActiveAgent {
  readonly id: string;
  private readonly unexplored: UnexploredSummary | null;

  constructor(
    private readonly client: LlmClient,
    private readonly task: Task,
    private readonly o: LlmAgentOptions,
    private readonly arm: "2d" | "3d",
  ) {
    this.id = `${client.id}${arm === "2d" ? "+images" : ""}`;
    this.unexplored = arm === "3d" ? new UnexploredSummary(task) : null;
  }

  private request(
    ctx: AgentContext,
    final: boolean,
  ): { system: string; user: string; images?: ChatImage[]; views?: Array<{ view: number; actions: string[] }> } {
    const parts: string[] = [historyLines(ctx)];
    let images: ChatImage[] | undefined;
    let shown: number[] = [];
    const n = ctx.bundle.views.length;
    if (this.arm === "2d") {
      const past = Array.from({ length: Math.min(HISTORY_IMAGES, n - 1) }, (_, k) => n - 1 - Math.min(HISTORY_IMAGES, n - 1) + k);
      shown = [...past, n - 1];
      images = shown.map((i) => png(ctx.bundle, i));
      parts.push(`Images, in order: ${[...past.map((i) => `[Past view from step ${i + 1}]`), `[CURRENT VIEW - step ${ctx.step}]`].join(" ")}`);
    } else {
      parts.push(`Scene graph of every view so far (${n} views):\n${serializeGraph(ctx.graph!, { format: this.o.format, uncertainty: this.o.uncertainty })}`);
      parts.push(
        `[CURRENT VIEW - step ${ctx.step}] camera at (${ctx.pose.position.map((x) => fmt(x)).join(", ")}) m, heading ${deg(ctx.pose.yaw)}°, pitch ${deg(ctx.pose.pitch)}°${ctx.lastBlocked ? "; your last move was blocked" : ""}. ${currentViewObjects(ctx)}`,
      );
      parts.push(this.unexplored!.text(ctx));
    }
    parts.push(`TASK: ${this.task.question}`);
    parts.push(
      final
        ? `Your step budget is exhausted (step ${ctx.step} of ${ctx.maxSteps}) or you stopped: you must commit now. Choose one of ${listedOptions(this.task, this.o).join(", ")}; "${NOT_SURE}" is not allowed. Reply with the JSON object, action "stop".`
        : `Step ${ctx.step} of ${ctx.maxSteps}.${ctx.phase ? ` You are in ${ctx.phase.label} of ${ctx.phase.count}: the world changes between phases while no one looks, and your steps are shared among them.` : ""} Reply with the JSON object.`,
    );
    return {
      system: systemPrompt(this.task, this.o, this.arm, ctx.actions),
      user: parts.join("\n\n"),
      ...(images ? { images, views: shown.map((view) => ({ view, actions: [] })) } : {}),
    };
  }

  private async ask(ctx: AgentContext, final: boolean, signal?: AbortSignal): Promise<AgentDecision> {
    const t0 = performance.now();
    const { views, ...req } = this.request(ctx, final);
    const temperature = final ? FORCED_TEMPERATURE : this.o.temperature;
    const promptLog = this.o.target
      ? promptLogOf({ ...this.o.target, params: { temperature, maxOutputTokens: null } }, { version: PROMPT_VERSION, ...req, views })
      : undefined;
    const logged = promptLog ? { promptLog, promptHash: promptLog.file.prompt_hash } : {};
    const raw: string[] = [];
    const calls: ModelCall[] = [];
    const call = async (user: string) => {
      const r = await this.client.chat({ ...req, user, temperature }, signal);
      raw.push(r.text);
      calls.push(modelCallOf(r));
      return readStepReply(r.text, this.task, final ? () => null : ctx.checkAction, this.o.optionLabels);
    };
    let reply: StepReply;
    let reprompted = false;
    try {
      reply = await call(req.user);
      const needsRetry = reply.status === "invalid" || (!final && reply.action === null && this.o.invalidAction === "reprompt");
      if (needsRetry) {
        reprompted = true;
        reply = await call(
          `${req.user}\n\nYour last reply could not be used (${reply.problem}). Reply with exactly one JSON object with a single valid action (one of ${vocabularyActions(ctx.actions).join(", ")}${ctx.actions === "all" ? ", the hands with their objects" : ""}) and one answer choice.`,
        );
      }
    } catch (e) {
      if ((e as Error).name === "AbortError" || (e as { kind?: string }).kind === "aborted") throw e;
      return {
        requestedAction: "",
        action: null,
        status: "error",
        answer: null,
        confidence: null,
        reasoning: (e as Error).message,
        trace: raw,
        reprompted,
        latencyMs: Math.round(performance.now() - t0),
        calls,
        ...logged,
      };
    }
    if (final && reply.status === "parsed" && reply.answer === null) reply = { ...reply, status: "unanswerable" };
    return {
      requestedAction: reply.requested,
      action: final ? "stop" : reply.action,
      status: reply.status,
      answer: reply.answer,
      ...(reply.match ? { match: reply.match } : {}),
      confidence: reply.confidence,
      reasoning: reply.reasoning,
      trace: raw,
      reprompted,
      latencyMs: Math.round(performance.now() - t0),
      calls,
      ...logged,
    };
  }

  step(ctx: AgentContext, signal?: AbortSignal): Promise<AgentDecision> {
    return this.ask(ctx, false, signal);
  }

  forceChoice(ctx: AgentContext, signal?: AbortSignal): Promise<AgentDecision> {
    return this.ask(ctx, true, signal);
  }
}

export function createLlmAgent(client: LlmClient, task: Task, o: LlmAgentOptions, arm: "2d" | "3d"): ActiveAgent {
  return new LlmAgent(client, task, o, arm);
}
