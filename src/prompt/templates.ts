/**
 * Prompts: a system text per arm, and a user text of [scene] + [question] + [answer template].
 *
 * The ESI-Bench paper does not print its prompt text (Appendix N gives only the protocol); ours follows that
 * protocol and VSI-Bench's lessons: the scene comes before the question, no chain-of-thought is asked for, and
 * the reply is a strict JSON object `{"answer": ..., "confidence": 0..1}` (the form src/reason/protocol.ts's
 * re-prompt reminder repeats). One answer template per answer kind:
 *
 * | kind       | when                                                   | answer field                       |
 * |------------|--------------------------------------------------------|------------------------------------|
 * | `yes_no`   | answer_format yes_no                                   | "yes" or "no" (or the options)     |
 * | `option`   | answer_format choice                                   | one option, copied as written      |
 * | `category` | choice in a subcategory whose answer is a category (core/task/taxonomy.ts LABEL_ANSWER_SUBCATEGORIES) | one category option |
 * | `integer`  | answer_format integer (the options, when given, listed) | an integer with digits             |
 * | `ordering` | answer_format ordering                                 | one complete order, as written     |
 * | `structured` | any_ordering, assignment, step_sequence, parts (imported ESI-Bench tasks) | a JSON list or object (structured.ts) |
 *
 * Arms: `3d-llm` (ESI-Bench's "3D + LLM": the serialized scene graph as text, no images) and `2d-vlm` (the
 * "2D + VLM" baselines: images only, with the camera conventions of the views sent).
 *
 * Reproducibility: the text is a pure function of the input (task, graph or bundle, options); `PROMPT_VERSION` is part of
 * every hash and changes whenever any text here or in serialize.ts / images.ts / reminder.ts changes.
 */
import { HEIGHT_STEP_M, MOVE_STEP_M, PITCH_STEP_RAD, TURN_STEP_RAD } from "../../core/task/actions.js";
import type { Task } from "../../core/task/schema.js";
import { LABEL_ANSWER_SUBCATEGORIES } from "../../core/task/taxonomy.js";
import { InputError } from "../../core/errors.js";
import { sha256Hex } from "../../core/hash.js";
import type { ChatImage } from "../llm/types.js";
import type { GraphFormat, OptionLabels } from "./formats.js";
import type { PromptInput } from "./input.js";
import { bundleImages, DEFAULT_MAX_IMAGES, describeImages, type ShownView } from "./images.js";
import { checkMaxImages, type ImageMode } from "./viewSelection.js";
import { DEFAULT_COGMAP_SIZE, fmt, serializeGraph } from "./serialize.js";
import { structuredShape } from "./structured.js";

/**
 * Bump on any change of prompt text (here, serialize.ts, images.ts, reminder.ts): it is part of every prompt hash.
 * 2: the re-prompt's reminder no longer shows the first option as its example answer.
 * 3: every format states the `stacked_on` predicate, and objects their physical attributes (height, footprint, upright, top tilt).
 */
export const PROMPT_VERSION = "esi3d-prompt/3";
const TEMPLATE_KINDS = ["yes_no", "option", "category", "integer", "ordering", "structured"] as const;
type TemplateKind = (typeof TEMPLATE_KINDS)[number];
type Arm = "3d-llm" | "2d-vlm";

/** A question that cannot be put to a model as given (no graph for a 3D arm, no bundle for images, ...). */
class PromptError extends InputError {
  constructor(message: string) {
    super(message);
    this.name = "PromptError";
  }
}

function templateKind(task: Pick<Task, "answer_format" | "subcategory">): TemplateKind {
  switch (task.answer_format) {
    case "yes_no":
      return "yes_no";
    case "integer":
      return "integer";
    case "ordering":
      return "ordering";
    case "choice":
      return LABEL_ANSWER_SUBCATEGORIES.has(task.subcategory) ? "category" : "option";
    case "any_ordering":
    case "assignment":
    case "step_sequence":
    case "parts":
      return "structured";
  }
}

const CONFIDENCE_LINE = "`confidence` is your probability, from 0 to 1, that your answer is correct.";
/** The reply-form line, shared with the re-prompt's reminder (reminder.ts). */
export const REPLY_LINE = "Reply with only a JSON object and nothing else, of the form";

/** The letter of the option at `index` in a lettered list (A, B, …). */
export const optionLetter = (index: number): string => String.fromCharCode(65 + index);

/** The options as list lines: "- text", or "A. text" when lettered. */
const optionLines = (options: readonly string[], labels: OptionLabels) =>
  options.map((o, i) => (labels === "letters" ? `${optionLetter(i)}. ${o}` : `- ${o}`)).join("\n");

/**
 * The question, its options and the required reply, for one answer kind. With `optionLabels` "letters" every
 * option list is lettered ("A. text") and the reply asked for is the letter (the option's text is read too);
 * with "none" (the default) the options are listed by their texts alone, in the order given, and a reply must
 * give one of them (src/reason/parse.ts reads no letter then).
 */
function answerTemplate(
  task: Pick<Task, "question" | "answer_format" | "options" | "subcategory" | "answer_spec">,
  optionLabels: OptionLabels = "none",
): string {
  const kind = templateKind(task);
  const o = task.options;
  const letters = optionLabels === "letters" && o.length > 0 && kind !== "structured";
  const lines = [`Question: ${task.question}`];
  const letterReply = `{"answer": "<the letter of one option>", "confidence": <a number from 0 to 1>}`;
  switch (kind) {
    case "yes_no": {
      if (letters) {
        lines.push(`Options:\n${optionLines(o, optionLabels)}`, "Answer with the letter of exactly one of the options.", REPLY_LINE, letterReply);
        break;
      }
      // the two words in the options' own order, so that a rotation of the options (--circular) is a prompt of its own
      const plain = o.length === 0 || (o.length === 2 && o.includes("yes") && o.includes("no"));
      const [first, second] = o.length === 2 ? o : ["yes", "no"];
      lines.push(
        plain ? `Answer "${first}" or "${second}".` : `Answer with exactly one of these options, copied as written:\n${optionLines(o, optionLabels)}`,
        REPLY_LINE,
        plain
          ? `{"answer": "${first}" or "${second}", "confidence": <a number from 0 to 1>}`
          : `{"answer": "<one of the options>", "confidence": <a number from 0 to 1>}`,
      );
      break;
    }
    case "option":
      lines.push(
        `Options:\n${optionLines(o, optionLabels)}`,
        letters ? "Answer with the letter of exactly one of the options." : "Answer with exactly one of the options, copied as written.",
        REPLY_LINE,
        letters ? letterReply : `{"answer": "<one of the options>", "confidence": <a number from 0 to 1>}`,
      );
      break;
    case "category":
      lines.push(
        `Options (object categories):\n${optionLines(o, optionLabels)}`,
        letters
          ? "Answer with the object's category: the letter of exactly one of the options."
          : "Answer with the object's category: exactly one of the options, copied as written.",
        REPLY_LINE,
        letters ? letterReply : `{"answer": "<one of the categories>", "confidence": <a number from 0 to 1>}`,
      );
      break;
    case "integer":
      if (letters) {
        lines.push(`Options:\n${optionLines(o, optionLabels)}`, "Answer with the letter of exactly one of the options.", REPLY_LINE, letterReply);
        break;
      }
      lines.push(
        o.length ? `Options: ${o.join(", ")}` : "",
        o.length ? "Answer with one of the options, an integer written with digits." : "Answer with an integer written with digits.",
        REPLY_LINE,
        `{"answer": <integer>, "confidence": <a number from 0 to 1>}`,
      );
      break;
    case "ordering":
      lines.push(
        `Options (each is a complete order, first to last):\n${optionLines(o, optionLabels)}`,
        letters ? "Answer with the letter of exactly one of the options." : "Answer with exactly one of the options, copied as written.",
        REPLY_LINE,
        letters ? letterReply : `{"answer": "<one of the options>", "confidence": <a number from 0 to 1>}`,
      );
      break;
    case "structured": {
      if (!task.answer_spec) throw new PromptError(`a ${task.answer_format} question needs its answer_spec`);
      const s = structuredShape(task.answer_spec);
      lines.push(
        ...s.options,
        `Answer with ${s.shape}.`,
        REPLY_LINE,
        `{"answer": <your answer>, "confidence": <a number from 0 to 1>}`,
        `Example of the form: ${s.example}`,
      );
      break;
    }
  }
  lines.push(CONFIDENCE_LINE);
  return lines.filter((l) => l !== "").join("\n");
}

// ---------------------------------------------------------------------------------------------------------------
// system prompts

/** 3D + LLM: the scene graph as text, no images. */
const SYSTEM_3D_LLM = [
  "You answer questions about a room that you, an agent, observed with your camera.",
  "You do not see the images. Instead you get a description of the scene built from the camera views: the objects found there, with their 3D positions and sizes in metres. " +
    "Its format and conventions are explained with it.",
  "Reason from the numbers and facts given; they are all you know about the scene. Give your best answer even when unsure, and reply with only the JSON object asked for.",
].join("\n");

const d = (r: number) => fmt((r * 180) / Math.PI, 0);

/** 2D VLM: images only, with the camera conventions of the views it gets. */
function system2dVlm(task: Pick<Task, "camera" | "agent_initial">, mode: ImageMode): string {
  const { width, height, hfov_deg } = task.camera;
  const a = task.agent_initial;
  const pitch = Number(d(Math.abs(a.pitch))) === 0 ? "level" : `pitched ${d(Math.abs(a.pitch))}° ${a.pitch > 0 ? "up" : "down"}`;
  const lines = [
    "You answer questions about a room from images taken by your camera: you are an agent standing in the room.",
    `Camera: each image is a ${width} × ${height} pixel pinhole photograph with a horizontal field of view of ${fmt(hfov_deg, 0)}°. ` +
      `Your initial view (view 0) is taken with the camera ${fmt(a.position[2])} m above the floor, ${pitch}.`,
  ];
  if (mode === "multi") {
    lines.push(
      "The other images were taken as you moved, each labelled with its view number and the actions taken since the previous image: " +
        `move_forward, move_backward, move_left and move_right move the camera ${fmt(MOVE_STEP_M)} m along the floor; move_up and move_down raise or lower it ${fmt(HEIGHT_STEP_M)} m; ` +
        `turn_left and turn_right rotate it ${d(TURN_STEP_RAD)}° about the vertical; turn_up and turn_down tilt it ${d(PITCH_STEP_RAD)}°. An action that was blocked leaves the camera where it was.`,
    );
  }
  lines.push(
    "Left, right, in front of and behind in a question are meant as seen from your initial view (view 0); in front of means nearer to you.",
    "Give your best answer even when unsure, and reply with only the JSON object asked for.",
  );
  return lines.join("\n");
}

// ---------------------------------------------------------------------------------------------------------------

export interface BuildOptions {
  /** the graph serialization (the prompt options' `format`, src/prompt/formats.ts) */
  format: GraphFormat;
  /** used when the input has no `uncertainty` (default false) */
  uncertainty?: boolean;
  /** cogmap cells per side (default DEFAULT_COGMAP_SIZE) */
  cogmapSize?: number;
  /** used when the input has no `maxImages` (default DEFAULT_MAX_IMAGES) */
  maxImages?: number;
  /** used when the input has no `optionLabels` (default "none") */
  optionLabels?: OptionLabels;
}

export interface BuiltPrompt {
  version: typeof PROMPT_VERSION;
  arm: Arm;
  template: TemplateKind;
  system: string;
  user: string;
  /** 2d-vlm only, in the order sent */
  images?: ChatImage[];
  /** 2d-vlm only: which bundle views the images are */
  views?: ShownView[];
  /** set when the options were lettered ("A. text"): the reply may then give a letter (src/reason/parse.ts) */
  optionLabels?: "letters";
  /** 3d-llm only */
  format?: GraphFormat;
  uncertainty?: boolean;
  cogmapSize?: number;
}

/**
 * The prompt for one input: with `input.images` the 2D VLM baseline (images of `input.bundle`, no graph), otherwise
 * the 3D + LLM arm (`input.graph` serialized). Throws PromptError when the input lacks what the arm needs.
 */
export function buildPrompt(input: PromptInput, opts: BuildOptions): BuiltPrompt {
  const task = input.task;
  if (!task || typeof task.question !== "string") throw new PromptError("the input has no task with a question");
  const template = templateKind(task);
  const optionLabels = input.optionLabels ?? opts.optionLabels ?? "none";
  const answer = answerTemplate(task, optionLabels);
  const labelled = optionLabels === "letters" ? { optionLabels: "letters" as const } : {};
  if (input.images) {
    if (!input.bundle) throw new PromptError(`${task.task_id}: images "${input.images}" need a frame bundle (input.bundle), and none was given`);
    let maxImages: number;
    try {
      maxImages = checkMaxImages(input.maxImages ?? opts.maxImages ?? DEFAULT_MAX_IMAGES);
    } catch (e) {
      throw new PromptError(`${task.task_id}: ${(e as Error).message}`);
    }
    const imgs = bundleImages(input.bundle, input.images, maxImages);
    return {
      version: PROMPT_VERSION,
      arm: "2d-vlm",
      template,
      system: system2dVlm(task, input.images),
      user: `${describeImages(imgs)}\n\n${answer}`,
      images: imgs.images,
      views: imgs.views,
      ...labelled,
    };
  }
  if (!input.graph) throw new PromptError(`${task.task_id}: the 3D + LLM arm needs a scene graph (input.graph), and none was given`);
  const format = opts.format;
  const uncertainty = input.uncertainty ?? opts.uncertainty ?? false;
  const cogmapSize = opts.cogmapSize ?? DEFAULT_COGMAP_SIZE;
  let scene: string;
  try {
    scene = serializeGraph(input.graph, { format, uncertainty, cogmapSize });
  } catch (e) {
    throw new PromptError(`${task.task_id}: ${(e as Error).message}`);
  }
  const out: BuiltPrompt = {
    version: PROMPT_VERSION,
    arm: "3d-llm",
    template,
    system: SYSTEM_3D_LLM,
    user: `${scene}\n\n${answer}`,
    ...labelled,
    format,
    uncertainty,
  };
  if (format === "cogmap") out.cogmapSize = cogmapSize;
  return out;
}

/** sha256 of each image, in order. */
function imageHashes(p: Pick<BuiltPrompt, "images">): string[] {
  return (p.images ?? []).map((im) => sha256Hex(im.data));
}

/** Section markers of the prompt record (see promptRecord). */
const RECORD_SYSTEM_MARKER = "=== system ===";
const RECORD_USER_MARKER = "=== user ===";
const RECORD_IMAGES_MARKER = "=== images ===";

/**
 * The prompt as one text for records: `=== system ===\n<system>\n=== user ===\n<user>` and, for the VLM arm,
 * `\n=== images ===\n` with one line per image, `image <k>: view <v>, <mime>, sha256 <hex>`. The system text is ours
 * and never contains a marker, so the record splits back unambiguously at the first `\n=== user ===\n`.
 */
export function promptRecord(p: BuiltPrompt): string {
  let s = `${RECORD_SYSTEM_MARKER}\n${p.system}\n${RECORD_USER_MARKER}\n${p.user}`;
  if (p.images && p.images.length) {
    const hashes = imageHashes(p);
    const lines = p.images.map((im, k) => `image ${k + 1}: view ${p.views?.[k]?.view ?? "?"}, ${im.mimeType}, sha256 ${hashes[k]}`);
    s += `\n${RECORD_IMAGES_MARKER}\n${lines.join("\n")}`;
  }
  return s;
}
