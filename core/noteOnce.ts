/** A log that prints each distinct line once: a note every unit repeats (vggt's fallback to CPU) is shown the first time. */
export function noteOnce(log: (line: string) => void): (line: string) => void {
  const seen = new Set<string>();
  return (line) => {
    if (seen.has(line)) return;
    seen.add(line);
    log(line);
  };
}
