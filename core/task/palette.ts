/** Named colours used by the object library; names appear in questions ("the red mug"). */
export type Rgb = [number, number, number];

export const COLORS: Record<string, Rgb> = {
  red: [200, 40, 40],
  orange: [235, 130, 30],
  yellow: [230, 200, 40],
  lime: [150, 200, 50],
  green: [50, 150, 60],
  teal: [40, 150, 150],
  blue: [45, 90, 200],
  purple: [130, 60, 170],
  pink: [230, 120, 170],
  brown: [120, 75, 40],
  tan: [200, 170, 120],
  white: [235, 235, 230],
  grey: [140, 140, 145],
  black: [35, 35, 40],
  silver: [185, 190, 195],
  cream: [240, 225, 190],
  peach: [245, 170, 120],
  wood: [150, 105, 65],
  darkwood: [95, 60, 35],
  glass: [200, 230, 240],
};

/**
 * The RGB of a colour a task names, or null when it names none: imported ESI-Bench tasks record no colours
 * (bridge/esibench/build.ts writes ""), so a simulator's capture of one has none either.
 */
export function namedColorRgb(name: string): Rgb | null {
  return name === "" ? null : colorRgb(name);
}

export function colorRgb(name: string): Rgb {
  const c = COLORS[name];
  if (!c) throw new Error(`unknown colour "${name}"`);
  return c;
}

/**
 * How far two colours look apart. Shading scales RGB by the light (0.4-1.2 here), so chromaticity (r, g, b
 * over their sum) and saturation weigh most; brightness separates white, grey and black. One measure for
 * naming a node's colour and for matching "the red mug" against nodes (3D) and masks (2D).
 */
export function colourDistance(a: readonly number[], b: readonly number[]): number {
  const fa = colourFeatures(a),
    fb = colourFeatures(b);
  return 3 * Math.hypot(fa.r - fb.r, fa.g - fb.g) + Math.abs(fa.sat - fb.sat) + 0.35 * Math.abs(fa.v - fb.v);
}

function colourFeatures(c: readonly number[]) {
  const s = c[0]! + c[1]! + c[2]! + 1e-6;
  const max = Math.max(c[0]!, c[1]!, c[2]!),
    min = Math.min(c[0]!, c[1]!, c[2]!);
  return { r: c[0]! / s, g: c[1]! / s, sat: max > 0 ? (max - min) / max : 0, v: max / 255 };
}

/** The palette name closest to an observed colour. */
export function nameColor(rgb: readonly number[], candidates: readonly string[] = Object.keys(COLORS).filter((c) => c !== "glass")): string {
  let best = candidates[0]!,
    bestD = Infinity;
  for (const name of candidates) {
    const d = colourDistance(rgb, colorRgb(name));
    if (d < bestD) [best, bestD] = [name, d];
  }
  return best;
}
