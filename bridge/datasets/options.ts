/** The options of `esi3d import <layout>`: one schema, from which the command's flags are derived. */
import * as z from "zod";
import type { FlagSpec } from "../../core/flags.js";
import { UP_AXES } from "./scene.js";

/**
 * The views a bundle keeps by default: the paradigms' budget of 30 views (design.md), so an imported scene
 * costs what a built-in one does; a dataset has thousands of frames.
 */
const DEFAULT_MAX_VIEWS = 30;

/** The most views one imported bundle may hold: 10x the paradigms' budget (a 640x480 view is ~2 MB in memory). */
const MAX_IMPORT_VIEWS = 300;

export const DatasetImportOptionsSchema = z
  .object({
    every: z.number().int().min(1).default(1).describe("keep every n-th frame (before --max-views)"),
    maxViews: z.number().int().min(1).max(MAX_IMPORT_VIEWS).default(DEFAULT_MAX_VIEWS).describe("at most this many views, evenly spaced over the kept frames"),
    up: z
      .enum([...UP_AXES, "none"])
      .optional()
      .describe("the source world's up axis, made +Z (default: the layout's, where it states one); none = claim no up axis"),
    intrinsics: z
      .string()
      .regex(/^\s*[\d.eE+-]+\s*,\s*[\d.eE+-]+\s*,\s*[\d.eE+-]+\s*,\s*[\d.eE+-]+\s*$/, "expected fx,fy,cx,cy (pixels of the depth image)")
      .optional()
      .describe("fx,fy,cx,cy in pixels of the depth image, overriding the layout's intrinsics"),
  })
  .strict();
export type DatasetImportFlags = z.infer<typeof DatasetImportOptionsSchema>;

export const DATASET_IMPORT_FLAGS: readonly FlagSpec[] = [
  { path: "every", flag: "--every <n>" },
  { path: "maxViews", flag: "--max-views <n>" },
  { path: "up", flag: "--up <axis>" },
  { path: "intrinsics", flag: "--intrinsics <fx,fy,cx,cy>" },
];
