import { describe, expect, it } from "vitest";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generateTask } from "../../../../bridge/sim/generate/suite.js";
import { generatorContext, GeneratorOptionsSchema } from "../../../../bridge/sim/generate/options.js";
import { captureBundle } from "../../../../bridge/sim/capture.js";
import { readBundle, writeBundle } from "../../../../core/bundle/io.js";
import { openaiReply, startServer } from "../../llm/server.js";
import { esi3d, esi3dAsync as runAsync, REPO_ROOT } from "./helpers.js";

function esi3dAsync(args: string[], env: Record<string, string>) {
  return runAsync(args, { env });
}

describe("esi3d ask", () => {
  const dir = mkdtempSync(join(tmpdir(), "esi3d-ask-"));
  const task = generateTask("counting_with_occlusion", "ask", 0);
  const { manifest, payloads } = captureBundle(task, "gt");
  writeBundle(join(dir, "b"), manifest, payloads);

  it("answers the bundle's own question with the symbolic and symbolic-2d programs and scores it", () => {
    const s = esi3d(["ask", join(dir, "b"), "--reasoner", "symbolic"]);
    expect(s.code, s.stderr).toBe(0);
    expect(s.stdout).toContain(task.question);
    expect(s.stdout).toMatch(/program trace:[\s\S]*\d+ node\(s\) labelled/);
    expect(s.stdout).toMatch(/correct: (yes|no) \(truth: \d+\)/);
    const two = esi3d(["ask", join(dir, "b"), "--reasoner", "symbolic-2d"]);
    expect(two.code, two.stderr).toBe(0);
    expect(two.stdout).toMatch(/most .* masks in one view/);
  });

  it("sends the serialized graph to an OpenAI-compatible server and shows prompt, reply and parsed answer", async () => {
    const server = await startServer((req, res) => {
      const body = req.body as { messages: Array<{ content: unknown }> };
      const text = JSON.stringify(body.messages);
      // the prompt must carry the graph and the question
      const ok = (text.includes(task.question) || text.includes("How many objects are there?")) && /"label"|is a /.test(text);
      res.writeHead(ok ? 200 : 400, { "content-type": "application/json" });
      res.end(
        JSON.stringify(
          ok
            ? {
                id: "x",
                object: "chat.completion",
                created: 0,
                model: "test-model",
                choices: [
                  {
                    index: 0,
                    finish_reason: "stop",
                    message: { role: "assistant", content: `Looking at the graph... {"answer": ${task.answer}, "confidence": 0.7}` },
                  },
                ],
              }
            : { error: { message: "prompt lacked the graph" } },
        ),
      );
    });
    try {
      const r = await esi3dAsync(["ask", join(dir, "b"), "--reasoner", "openai:test-model", "--base-url", `${server.url}/v1`, "--no-cache", "--show-prompt"], {
        OPENAI_API_KEY: "sk-test-secret",
      });
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(r.stdout).toMatch(/--- prompt ---[\s\S]*=== system ===[\s\S]*=== user ===[\s\S]*--- end of prompt ---/);
      expect(r.stdout).toMatch(/reply:\n  Looking at the graph/);
      expect(r.stdout).toMatch(new RegExp(`answer: ${task.answer} \\(confidence 0.7\\)`));
      expect(r.stdout).toContain(`correct: yes (truth: ${task.answer})`);
      expect(r.stdout + r.stderr).not.toContain("sk-test-secret");
      expect(server.requests.length).toBe(1);
      // a question of one's own is answered but not scored
      const q = await esi3dAsync(
        [
          "ask",
          join(dir, "b"),
          "--reasoner",
          "openai:test-model",
          "--base-url",
          `${server.url}/v1`,
          "--no-cache",
          "--question",
          "How many objects are there?",
          "--options",
          "3,4,5,6",
        ],
        { OPENAI_API_KEY: "k" },
      );
      expect(q.code, q.stderr).toBe(0);
      expect(q.stdout).not.toMatch(/correct:/);
    } finally {
      await server.close();
    }
  });

  it("--option-labels letters reads a letter; unlettered, the letter names no option; --circular asks every rotation", async () => {
    const server = await startServer(openaiReply('{"answer": "A", "confidence": 0.5}'));
    try {
      const args = ["ask", join(dir, "b"), "--reasoner", "openai:test-model", "--base-url", `${server.url}/v1`, "--no-cache"];
      const lettered = await esi3dAsync([...args, "--option-labels", "letters", "--show-prompt"], { OPENAI_API_KEY: "k" });
      expect(lettered.code, lettered.stderr).toBe(0);
      expect(lettered.stdout).toContain(`Options:\nA. ${task.options[0]}\nB. ${task.options[1]}`);
      expect(lettered.stdout).toContain(`answer: ${task.options[0]} (confidence 0.5) [parsed, json, matched by letter]`);
      const plain = await esi3dAsync(args, { OPENAI_API_KEY: "k" });
      expect(plain.code, plain.stderr).toBe(0);
      expect(plain.stdout).toContain("answer: (none) [invalid, none, re-prompted]");
      expect(plain.stdout).toContain('why: JSON answer: "A" matches none of the options; the options were not lettered');
      server.requests.length = 0;
      const circular = await esi3dAsync([...args, "--option-labels", "letters", "--circular"], { OPENAI_API_KEY: "k" });
      expect(circular.code, circular.stderr).toBe(0);
      expect(server.requests).toHaveLength(task.options.length);
      // "A" is each rotation's first option: right in one rotation at most, so the item is wrong
      for (let r = 0; r < task.options.length; r++)
        expect(circular.stdout).toContain(`  rotation ${r} (${[...task.options.slice(r), ...task.options.slice(0, r)].join(" | ")}): ${task.options[r]}`);
      expect(circular.stdout).toContain(`correct: no (every rotation must be right) (truth: ${task.answer})`);
    } finally {
      await server.close();
    }
  });

  describe("--paradigm active: one episode from the task's initial pose", () => {
    const small = generateTask("linear_alignment", "ask", 0, generatorContext(GeneratorOptionsSchema.parse({}), { width: 160, height: 120, hfov_deg: 70 }));
    const taskFile = join(dir, "small-task.json");
    writeFileSync(taskFile, JSON.stringify(small));
    const stepRow = /^(\d+)\s{2,}/;

    it("the symbolic explorer: the step table, the stop, the scored answer; the saved episode is a bundle ask reads", () => {
      const ep = join(dir, "episode");
      const r = esi3d(["ask", taskFile, "--paradigm", "active", "--max-steps", "4", "--explorer", "nbv", "--save-episode", ep]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain(small.question);
      expect(r.stdout).toMatch(/episode: symbolic\+nbv, 3D \(source gt\); max steps 4, threshold 0\.8, min steps 3, invalid actions reprompt/);
      expect(r.stdout).toMatch(/step\s+asked\s+action\s+blocked\s+answer\s+confidence\s+nodes/);
      const steps = r.stdout.split("\n").filter((l) => stepRow.test(l));
      expect(steps.length).toBeGreaterThanOrEqual(1);
      expect(steps.length).toBeLessThanOrEqual(4);
      const stopped = /stopped: (budget|confident|stop_action) after (\d+) step\(s\), (\d+) view\(s\)/.exec(r.stdout);
      expect(stopped, r.stdout).not.toBeNull();
      expect(Number(stopped![2])).toBe(steps.length);
      expect(r.stdout).toMatch(/answer: .* \[parsed, active:symbolic\+nbv\]/);
      expect(r.stdout).toMatch(/correct: (yes|no) \(truth: (yes|no)\)/);
      // the episode's views as a bundle of paradigm active, asked passively by both programs
      const b = readBundle(ep);
      expect(b.manifest.paradigm).toBe("active");
      expect(b.views.length).toBe(Number(stopped![3]));
      expect(b.manifest.views[0]!.action).toBeNull();
      const again = esi3d(["ask", ep]);
      expect(again.code, again.stderr).toBe(0);
      expect(again.stdout).toMatch(/answer: (yes|no) .*\[parsed, program:linear_alignment, matched by text\]/);
      const twoD = esi3d(["ask", ep, "--reasoner", "symbolic-2d"]);
      expect(twoD.code, twoD.stderr).toBe(0);
      // the 2D arm explores too (seeded walk), never with a graph
      const walk = esi3d(["ask", ep, "--paradigm", "active", "--reasoner", "symbolic-2d", "--max-steps", "3"]);
      expect(walk.code, walk.stderr).toBe(0);
      expect(walk.stdout).toMatch(/episode: symbolic-2d\+random, 2D;/);
    }, 120_000);

    it("an LLM agent over HTTP: an invalid action is re-prompted, a confident answer stops at --min-steps", async () => {
      const other = small.options.find((o) => o !== small.answer)!;
      const reply = (action: string, answer: string, confidence: number) =>
        openaiReply(JSON.stringify({ action, answer, reasoning: `scripted ${action}`, confidence }));
      const server = await startServer(reply("fly", "not sure", 0.1), reply("turn_left", other, 0.4), reply("turn_right", small.answer, 0.9));
      try {
        const r = await esi3dAsync(
          [
            "ask",
            taskFile,
            "--paradigm",
            "active",
            "--reasoner",
            "openai:test-model",
            "--base-url",
            `${server.url}/v1`,
            "--no-cache",
            "--max-steps",
            "5",
            "--min-steps",
            "2",
            "--show-prompt",
          ],
          { OPENAI_API_KEY: "k" },
        );
        expect(r.code, r.stdout + r.stderr).toBe(0);
        // step 1: "fly", re-prompted once, then turn_left; step 2: confident and conclusive at --min-steps
        expect(server.requests.length).toBe(3);
        expect(r.stdout).toMatch(/episode: openai:test-model, 3D \(source gt\); max steps 5, threshold 0\.8, min steps 2/);
        expect(r.stdout).toMatch(new RegExp(`\\n1\\s+turn_left\\s+no\\s+${other}\\s+0\\.4\\s+\\d+\\n`));
        expect(r.stdout).toMatch(/scripted turn_left/); // --show-prompt shows each step's reasoning
        expect(r.stdout).toMatch(/stopped: confident after 2 step\(s\)/);
        expect(r.stdout).toMatch(new RegExp(`answer: ${small.answer} \\(confidence 0.9\\) \\[parsed, active:openai:test-model, re-prompted\\]`));
        expect(r.stdout).toContain(`correct: yes (truth: ${small.answer})`);
      } finally {
        await server.close();
      }
    }, 120_000);

    it("bad input exits 2 naming the flag or the file, and writes no episode", () => {
      const ep = join(dir, "never");
      for (const [args, why] of [
        [[taskFile, "--max-steps", "3"], /--max-steps: only with --paradigm active/],
        [[taskFile, "--paradigm", "active", "--max-steps", "0", "--save-episode", ep], /--max-steps: expected an integer in \[1, 500\], got "0"/],
        [[taskFile, "--paradigm", "active", "--threshold", "1.2", "--save-episode", ep], /--threshold: expected a number in \[0, 1\], got "1.2"/],
        [[taskFile, "--paradigm", "active", "--explorer", "greedy", "--save-episode", ep], /--explorer: expected one of nbv, verify, random, got "greedy"/],
        [[taskFile, "--paradigm", "video"], /--paradigm: expected one of single, multi, gt, active, got "video"/],
        [
          [join(REPO_ROOT, "test", "src", "prompt", "fixtures", "spatial_distance-000.gt.graph.json"), "--paradigm", "active"],
          /spatial_distance-000\.gt\.graph\.json: --paradigm active: a scene graph has no scene to explore/,
        ],
      ] as const) {
        const r = esi3d(["ask", ...args]);
        expect(r.code, r.stderr).toBe(2);
        expect(r.stderr).toMatch(why);
        expect(r.stderr).not.toMatch(/\n\s+at /);
      }
      expect(existsSync(ep)).toBe(false);
    }, 120_000);
  });
});
