/** Which frames of a dataset scene an import keeps (--every, --max-views). */

/** Indices of the frames kept: every n-th, then at most `max` evenly spaced (first and last included). */
export function subsample(count: number, every: number, max: number): number[] {
  const kept = Array.from({ length: Math.ceil(count / every) }, (_, k) => k * every);
  if (kept.length <= max) return kept;
  if (max === 1) return [kept[0]!];
  return Array.from({ length: max }, (_, k) => kept[Math.round((k * (kept.length - 1)) / (max - 1))]!);
}
