/**
 * Issue 18: a run in which every item that needed the model failed exits non-zero and says why (the most
 * common failure class and its message), never "NaN%", through the real CLI. The endpoint is unreachable:
 * a loopback port that was listening a moment ago and is closed now. The default baselines include the
 * offline shortcut arm, which answers anyway: the run must still count as failed.
 */
import { describe, expect, it } from "vitest";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { esi3dAsync } from "./helpers.js";
import { readRecords } from "../../../../src/eval/records.js";
import { startServer } from "../../llm/server.js";

describe("esi3d run whose every model item failed", () => {
  it("an unreachable endpoint: exit 1 with the most common cause and its message, no NaN", async () => {
    const gone = await startServer();
    const url = gone.url;
    await gone.close();
    const out = join(mkdtempSync(join(tmpdir(), "esi3d-unreachable-")), "r");
    const r = await esi3dAsync(
      [
        "run",
        "--per-subcategory",
        "1",
        "--subcategories",
        "linear_alignment",
        "--paradigm",
        "single",
        "--source",
        "gt",
        "--reasoner",
        "openai:test-model",
        "--base-url",
        `${url}/v1`,
        "--max-retries",
        "0",
        "--no-cache",
        "--out",
        out,
      ],
      { env: { OPENAI_API_KEY: "sk-unreachable-test" } },
    );
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(
      /no item got an answer \(LlmError:connection 3\); most common cause LlmError:connection \(3 items\): openai:test-model at http:\/\/127\.0\.0\.1:\d+\/v1: connection failed: fetch failed \(ECONNREFUSED\)/,
    );
    expect(r.stdout + r.stderr).not.toMatch(/NaN/);
    const records = readRecords(join(out, "items.jsonl")).records;
    // the 2D arm, the 3D arms (oracle and appearance labels) failed; the shortcut answered offline
    expect(records.map((x) => [x.arm, x.status]).sort()).toEqual([
      ["2d", "error"],
      ["3d", "error"],
      ["3d", "error"],
      ["shortcut", "parsed"],
    ]);
    for (const x of records.filter((x) => x.status === "error")) {
      expect(x.error?.class).toBe("LlmError:connection");
      // no call returned: no tokens, no served model
      expect([x.usage, x.served_model, x.calls]).toEqual([null, null, []]);
    }
  }, 120_000);
});
