/**
 * How a prompt carries its evidence, declared once: the graph serialization (docs/prompts.md) with or
 * without uncertainty, for the VLM 2D baseline which images, and how the options are listed (labels,
 * rotations). CLI flags, run configs and service bodies derive from these schemas.
 */
import * as z from "zod";
import type { FlagSpec } from "../../core/flags.js";

export const GRAPH_FORMATS = ["json", "text", "relations", "cogmap"] as const;
export type GraphFormat = (typeof GRAPH_FORMATS)[number];

export const PromptFormatSchema = z
  .object({
    // relations by default: ConceptGraphs-style objects plus relation triples, the de facto convention of 3D scene-graph
    // tools, and the one that gives the LLM both coordinates and the relations it gets wrong (VSI-Bench's findings)
    format: z.enum(GRAPH_FORMATS).default("relations").describe("graph serialization for LLMs: json | text | relations | cogmap"),
    uncertainty: z.boolean().default(false).describe("uncertainty-aware serialization (node support and flags, relation margins)"),
  })
  .strict();
export type PromptFormat = z.infer<typeof PromptFormatSchema>;

/** How a prompt lists a question's options: `none` ("- text", the options' own texts only) or `letters` ("A. text"). */
const OPTION_LABELS = ["none", "letters"] as const;
export type OptionLabels = (typeof OPTION_LABELS)[number];

/** How a parsed answer was matched to its option (an item record's `match`; src/reason/parse.ts answerMatchOf). */
export const ANSWER_MATCHES = ["text", "letter", "fuzzy"] as const;
export type AnswerMatch = (typeof ANSWER_MATCHES)[number];

/**
 * How a question's options are put to a reasoner: their labels, and CircularEval (VLMEvalKit: a choice item is
 * asked once per rotation of its options and is right only when every rotation is right, so an answer that
 * follows a position, not the content, cannot score above chance). Runs, `esi3d ask` and the service take both.
 */
export const OptionPresentationSchema = z
  .object({
    optionLabels: z
      .enum(OPTION_LABELS)
      .default("none")
      .describe('option labels in prompts: none (the options\' own texts; a reply must give one of them) | letters ("A. text"; a reply may give the letter)'),
    circular: z
      .boolean()
      .default(false)
      .describe(
        "circular evaluation: ask each item with a list of 2 or more options once per rotation of its options (every rotation a call of its own), scored right only if every rotation is right",
      ),
  })
  .strict();
export type OptionPresentation = z.infer<typeof OptionPresentationSchema>;

/** Default number of images for `multi` (see the file comment for why). */
export const DEFAULT_MAX_IMAGES = 8;
/** The most images ever sent: the paper's 30 views (= T_max, the ESI-Bench paper's four paradigms). */
export const MAX_IMAGES = 30;

export const ImageOptionsSchema = z
  .object({
    images: z
      .enum(["single", "multi"])
      .default("multi")
      .describe("VLM 2D baseline: images sent instead of a graph (single: the first view; multi: up to max-images views)"),
    maxImages: z.number().int().min(1).max(MAX_IMAGES).default(DEFAULT_MAX_IMAGES).describe("VLM 2D baseline: images per question"),
  })
  .strict();
export type ImageOptions = z.infer<typeof ImageOptionsSchema>;

export const PROMPT_FORMAT_FLAGS: readonly FlagSpec[] = [
  { path: "format", flag: "--format <f>" },
  { path: "uncertainty", flag: "--uncertainty <on|off>", kind: "onoff" },
];
export const OPTION_PRESENTATION_FLAGS: readonly FlagSpec[] = [
  { path: "optionLabels", flag: "--option-labels <mode>" },
  { path: "circular", flag: "--circular" },
];
export const IMAGE_FLAGS: readonly FlagSpec[] = [
  { path: "images", flag: "--images <mode>" },
  { path: "maxImages", flag: "--max-images <n>" },
];
