/** Per-stage wall times: each lap(name) records the milliseconds since the previous lap (or the start). */
export function stageTimer(decimals: number): { timings: Record<string, number>; lap: (name: string) => void } {
  const timings: Record<string, number> = {};
  const scale = 10 ** decimals;
  let t = performance.now();
  const lap = (name: string) => {
    const now = performance.now();
    timings[name] = Math.round((now - t) * scale) / scale;
    t = now;
  };
  return { timings, lap };
}
