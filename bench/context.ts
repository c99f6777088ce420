/** Shared helpers for benchmark modules: timing, memory and a summary of goals met. */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface GoalLine {
  name: string;
  measured: string;
  goal: string;
  met: boolean;
}

export class BenchContext {
  readonly goals: GoalLine[] = [];
  readonly workDir: string;

  constructor() {
    this.workDir = join(tmpdir(), `esi3d-bench-${process.pid}`);
    mkdirSync(this.workDir, { recursive: true });
  }

  /** Best (minimum) wall time of `runs` calls, in milliseconds. */
  async time<T>(fn: () => T | Promise<T>, runs = 3): Promise<{ ms: number; result: T }> {
    let best = Infinity;
    let result!: T;
    for (let i = 0; i < runs; i++) {
      const t = performance.now();
      result = await fn();
      best = Math.min(best, performance.now() - t);
    }
    return { ms: best, result };
  }

  goal(name: string, measured: string, goal: string, met: boolean): void {
    this.goals.push({ name, measured, goal, met });
    console.log(`  goal: ${name}: ${measured} (goal ${goal}) ${met ? "MET" : "NOT MET"}`);
  }

  /** Debian's python3 with Open3D, when installed (../shared/peers/README.md). */
  pythonWithOpen3d(): string | null {
    const py = "/usr/bin/python3";
    if (!existsSync(py)) return null;
    try {
      execFileSync(py, ["-c", "import open3d, numpy"], { stdio: "ignore" });
      return py;
    } catch {
      return null;
    }
  }

  printSummary(): void {
    if (this.goals.length === 0) return;
    console.log("\n== goals ==");
    for (const g of this.goals) console.log(`${g.met ? "MET    " : "NOT MET"}  ${g.name}: ${g.measured} (goal ${g.goal})`);
  }
}
