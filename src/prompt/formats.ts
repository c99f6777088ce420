/**
 * How a prompt carries its evidence, declared once: the graph serialization (docs/prompts.md) with or
 * without uncertainty, and, for the VLM 2D baseline, which images. CLI flags, run configs and service
 * bodies derive from these schemas.
 */
import { z } from "zod";
import type { FlagSpec } from "../core/flags.js";

export const GRAPH_FORMATS = ["json", "text", "relations", "cogmap"] as const;
export type GraphFormat = (typeof GRAPH_FORMATS)[number];

export const PromptFormatSchema = z
  .object({
    format: z.enum(GRAPH_FORMATS).default("relations").describe("graph serialization for LLMs: json | text | relations | cogmap"),
    uncertainty: z.boolean().default(false).describe("uncertainty-aware serialization (node support and flags, relation margins)"),
  })
  .strict();

/** Default number of images for `multi` (see the file comment for why). */
export const DEFAULT_MAX_IMAGES = 8;
/** The most images ever sent: the paper's 30 views (= T_max, esi-spec.md §2.2–2.3). */
export const MAX_IMAGES = 30;

export const ImageOptionsSchema = z
  .object({
    images: z.enum(["single", "multi"]).default("multi").describe("VLM 2D baseline: images sent instead of a graph (single: the first view; multi: up to max-images views)"),
    maxImages: z.number().int().min(1).max(MAX_IMAGES).default(DEFAULT_MAX_IMAGES).describe("VLM 2D baseline: images per question"),
  })
  .strict();

export const PROMPT_FORMAT_FLAGS: readonly FlagSpec[] = [
  { path: "format", flag: "--format <f>" },
  { path: "uncertainty", flag: "--uncertainty <on|off>", kind: "onoff" },
];
export const IMAGE_FLAGS: readonly FlagSpec[] = [
  { path: "images", flag: "--images <mode>" },
  { path: "maxImages", flag: "--max-images <n>" },
];
