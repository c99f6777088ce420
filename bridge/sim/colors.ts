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

export function colorRgb(name: string): Rgb {
  const c = COLORS[name];
  if (!c) throw new Error(`unknown colour "${name}"`);
  return c;
}
