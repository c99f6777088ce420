/**
 * Progress for long work: a one-line bar on a terminal (items done, rate, ETA, failures), plain log lines
 * when stderr is not a TTY (CI), at most every LOG_INTERVAL_MS.
 */
export const LOG_INTERVAL_MS = 10_000;
const BAR_WIDTH = 24;

function duration(s: number): string {
  if (!Number.isFinite(s)) return "?";
  if (s < 60) return `${Math.round(s)}s`;
  return `${Math.floor(s / 60)}m${String(Math.round(s % 60)).padStart(2, "0")}s`;
}

export class Progress {
  private done = 0;
  private failed = 0;
  private lastLog = 0;
  private readonly start = Date.now();
  private readonly tty: boolean;

  constructor(
    private readonly label: string,
    private total: number,
    private readonly stream: NodeJS.WriteStream = process.stderr,
  ) {
    this.tty = !!stream.isTTY && !process.env.CI;
  }

  setTotal(n: number): void {
    this.total = n;
  }

  tick(n = 1, failed = 0): void {
    this.done += n;
    this.failed += failed;
    this.render(false);
  }

  line(text: string): void {
    if (this.tty) this.stream.write("\r\x1b[2K");
    this.stream.write(text + "\n");
    this.render(true);
  }

  finish(): void {
    this.render(true, true);
    if (this.tty) this.stream.write("\n");
  }

  private render(force: boolean, final = false): void {
    const now = Date.now();
    const secs = (now - this.start) / 1000;
    const rate = this.done / Math.max(secs, 1e-3);
    const eta = (this.total - this.done) / rate;
    const text = `${this.label}: ${this.done}/${this.total} items, ${rate.toFixed(2)}/s, ${final ? `took ${duration(secs)}` : `ETA ${duration(eta)}`}, ${this.failed} failed`;
    if (this.tty) {
      const filled = Math.round((BAR_WIDTH * this.done) / Math.max(1, this.total));
      this.stream.write(`\r\x1b[2K[${"#".repeat(filled)}${".".repeat(BAR_WIDTH - filled)}] ${text}`);
    } else if (force || final || now - this.lastLog >= LOG_INTERVAL_MS) {
      if (this.done === 0 && !final) return;
      this.lastLog = now;
      this.stream.write(text + "\n");
    }
  }
}
