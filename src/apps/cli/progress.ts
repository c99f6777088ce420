/**
 * Progress for long work: a one-line bar on a terminal (items done, rate, ETA, failures and invalid replies
 * apart: a reply that could not be read is the model's answer, not a failed call), plain log lines
 * when stderr is not a TTY (CI), at most every LOG_INTERVAL_MS. The rate counts only the items this process
 * finished (a resumed run's earlier items took no time here), and an interrupted run's last line says so.
 */
const LOG_INTERVAL_MS = 10_000;
const BAR_WIDTH = 24;

/**
 * No ETA before ETA_MIN_ITEMS items have finished and ETA_MIN_SECONDS have passed since the first one did. The first
 * item carries worker start-up and first-use costs (a 5-minute run once showed "ETA 118m20s" after its first item), so the ETA's rate is measured from the first item's finish, over at least these.
 */
const ETA_MIN_ITEMS = 5;
const ETA_MIN_SECONDS = 10;

function duration(s: number): string {
  if (!Number.isFinite(s)) return "?";
  if (s < 60) return `${Math.round(s)}s`;
  return `${Math.floor(s / 60)}m${String(Math.round(s % 60)).padStart(2, "0")}s`;
}

export class Progress {
  private done = 0;
  /** items done before this process (a resumed run): in the count, never in the rate */
  private before = 0;
  private failed = 0;
  private invalid = 0;
  private lastLog = 0;
  private readonly start = Date.now();
  /** when the first items finished, and how many: the ETA's rate starts there, past the start-up */
  private first: { at: number; done: number } | null = null;
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

  /** A resumed run's items finished by earlier processes. */
  resumeFrom(n: number): void {
    this.done += n;
    this.before += n;
  }

  /** `failed`: items with no reply (error, empty); `invalid`: items whose reply could not be read. */
  tick(n = 1, failed = 0, invalid = 0): void {
    this.done += n;
    this.failed += failed;
    this.invalid += invalid;
    if (!this.first && this.done > this.before) this.first = { at: Date.now(), done: this.done };
    this.render(false);
  }

  line(text: string): void {
    if (this.tty) this.stream.write("\r\x1b[2K");
    this.stream.write(text + "\n");
    this.render(true);
  }

  /** The last line: what was done and how long it took, or that the work was interrupted. */
  finish(interrupted = false): void {
    this.render(true, interrupted ? "interrupted" : "finished");
    if (this.tty) this.stream.write("\n");
  }

  /** "ETA 3m08s" from the rate since the first item finished, or why there is none yet. */
  private eta(now: number): string {
    const since = this.first ? (now - this.first.at) / 1000 : 0;
    if (!this.first || this.done < ETA_MIN_ITEMS || since < ETA_MIN_SECONDS || this.done === this.first.done)
      return `ETA after ${ETA_MIN_ITEMS} items and ${ETA_MIN_SECONDS}s`;
    const rate = (this.done - this.first.done) / since;
    return `ETA ${duration((this.total - this.done) / rate)}`;
  }

  private render(force: boolean, final: "finished" | "interrupted" | null = null): void {
    const now = Date.now();
    const secs = (now - this.start) / 1000;
    const here = this.done - this.before;
    const rate = here / Math.max(secs, 1e-3);
    const before = this.before ? ` (${this.before} done before this process)` : "";
    const failures = `${this.failed} failed${this.invalid ? `, ${this.invalid} invalid` : ""}`;
    const text =
      final === "interrupted"
        ? `${this.label}: interrupted with ${this.done} of ${this.total} items done${before}, ${this.total - this.done} not done; ${here} in this process, ${rate.toFixed(2)}/s over ${duration(secs)}, ${failures}`
        : `${this.label}: ${this.done}/${this.total} items${before}, ${rate.toFixed(2)}/s, ${final ? `took ${duration(secs)}` : this.eta(now)}, ${failures}`;
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
