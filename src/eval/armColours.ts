/**
 * One colour per arm, the same in every chart of a report: the baselines in neutral tones, each 3D source a
 * hue of its own, its appearance-label arm a lighter shade of that hue (the same source, a weaker label
 * model), noise levels of an ablation darker or lighter shades of the noisy hue, and a second or third
 * reasoner a darker shade of its arm's colour, so its methods stay in the arm's family.
 */
import { splitMethod } from "./summary.js";

/** The arms' own colours (hex). The 3D hues are far apart on the colour wheel: blue, orange, red. */
const ARM_COLOURS: Readonly<Record<string, string>> = {
  "2D": "#6b6b6b",
  Shortcut: "#a88b2c",
  "GT-3D": "#1f66b1",
  "GT-3D appearance": "#7fb2e5",
  "Noisy-3D": "#e06c00",
  "Noisy-3D appearance": "#f7b56e",
  "VGGT-3D": "#c0262d",
  "VGGT-3D appearance": "#f08c8f",
};

/** An arm this palette does not know (another source's arm): a colour no known arm uses. */
const OTHER_ARM_COLOUR = "#2a9d8f";

/** Shades of the noisy hue for an ablation's levels, in the order the levels appear (oracle labels; appearance ones lighter). */
const NOISE_LEVEL_SHADES = ["#7a3300", "#a84a00", "#cf6a12", "#ef8a2e", "#ffab5c", "#4d2000"] as const;

/** Lighten (t > 0, towards white) or darken (t < 0, towards black) a hex colour by the share |t|. */
function shade(hex: string, t: number): string {
  const n = parseInt(hex.slice(1), 16);
  const channel = (c: number) => Math.round(t >= 0 ? c + (255 - c) * t : c * (1 + t));
  const rgb = [(n >> 16) & 255, (n >> 8) & 255, n & 255].map(channel);
  return `#${rgb.map((c) => c.toString(16).padStart(2, "0")).join("")}`;
}

/** The share a second (third, ...) reasoner's methods are darkened by, per step. */
const REASONER_DARKEN = 0.3;
/** How much lighter an appearance-label noise level is than its oracle-label level. */
const APPEARANCE_LIGHTEN = 0.45;

/**
 * The colour of a method of a run, given the run's methods (for the order of noise levels and reasoners):
 * "GT-3D", "GT-3D appearance", "Noisy-3D@1.5", "GT-3D [openai:gpt-4o]".
 */
export function armColour(method: string, methods: readonly string[] = []): string {
  const { arm, reasoner } = splitMethod(method);
  let colour = ARM_COLOURS[arm];
  const level = /^Noisy-3D@([^ ]+)( appearance)?$/.exec(arm);
  if (colour === undefined && level) {
    const levels = [...new Set(methods.map((m) => /^Noisy-3D@([^ ]+)/.exec(splitMethod(m).arm)?.[1]).filter((x): x is string => x !== undefined))];
    const i = Math.max(0, levels.indexOf(level[1]!));
    colour = NOISE_LEVEL_SHADES[i % NOISE_LEVEL_SHADES.length]!;
    if (level[2]) colour = shade(colour, APPEARANCE_LIGHTEN);
  }
  colour ??= OTHER_ARM_COLOUR;
  if (reasoner === null) return colour;
  const reasoners = [...new Set(methods.map((m) => splitMethod(m).reasoner).filter((r): r is string => r !== null))];
  const k = Math.max(0, reasoners.indexOf(reasoner));
  return k === 0 ? colour : shade(colour, -Math.min(0.75, REASONER_DARKEN * k));
}

/** Whether an arm reads appearance labels (its charts draw it lighter, and its intervals dashed). */
export const isAppearanceArm = (method: string): boolean => splitMethod(method).arm.endsWith(" appearance");
