/**
 * The built-in suite's generator options: one declaration gives `esi3d generate`'s and `esi3d run`'s flags,
 * the run's config.json fields and the generators' settings. Defaults follow ESI-Bench's released generator
 * (ESI-Bench's released generator scripts) except the render size, kept at VGGT's fast crop size (docs/performance.md: the render bench
 * measures both).
 */
import * as z from "zod";
import type { FlagSpec } from "../../../core/flags.js";
import type { CameraSpec } from "../../../core/task/schema.js";

/**
 * Render sizes by name:
 * - 518x392: VGGT's crop-mode size for 4:3 frames at 70 deg, the only FOV the paper states (the fast default);
 * - 1280x720: ESI-Bench's renders, 2·atan(20.955/34) = 63.29 deg HFOV (ESI-Bench's released camera conventions).
 */
export const IMAGE_SIZES = {
  "518x392": { width: 518, height: 392, hfov_deg: 70 },
  "1280x720": { width: 1280, height: 720, hfov_deg: 63.29 },
} as const satisfies Record<string, CameraSpec>;
export type ImageSize = keyof typeof IMAGE_SIZES;

const ORIENTATIONS = ["room-axis", "random"] as const;

export const GeneratorOptionsSchema = z
  .object({
    image: z
      .enum(Object.keys(IMAGE_SIZES) as [ImageSize, ...ImageSize[]])
      .default("518x392")
      .describe("built-in suite: render size and field of view of its cameras: 518x392 (70 deg, VGGT's crop size) | 1280x720 (63.29 deg, ESI-Bench's renders)"),
    orientation: z
      .enum(ORIENTATIONS)
      .default("room-axis")
      .describe(
        "built-in suite: triangles, lines and contact pairs laid along the room's X axis with axis-aligned objects, as ESI's generator does (room-axis), or at drawn angles (random, suite v1)",
      ),
    triangleClassMargin: z
      .number()
      .min(0)
      .max(0.3)
      .default(0)
      .describe(
        "built-in suite: least relative difference between a non-equal triangle's sides (0: ESI's construction, no margin; 0.15: suite v1's margin, far outside the 5 % equal-side tolerance)",
      ),
  })
  .strict();

export type GeneratorOptions = z.infer<typeof GeneratorOptionsSchema>;

export const GENERATOR_FLAGS: readonly FlagSpec[] = [
  { path: "image", flag: "--image <WxH>" },
  { path: "orientation", flag: "--orientation <o>" },
  { path: "triangleClassMargin", flag: "--triangle-class-margin <x>" },
];

/** What a generator is given besides its random stream: the camera it renders with and the options. */
export interface GeneratorContext {
  camera: CameraSpec;
  options: GeneratorOptions;
}

/** The context of parsed options (a run's config, the flags): the camera of its image size, unless one is given. */
export const generatorContext = (options: GeneratorOptions, camera?: CameraSpec): GeneratorContext => ({
  camera: camera ?? { ...IMAGE_SIZES[options.image] },
  options,
});
