import { describe, expect, it } from "vitest";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generateTask } from "../../../bridge/sim/generate/suite.js";
import { captureBundle } from "../../../bridge/sim/capture.js";
import { writeBundle } from "../../../bridge/bundle/io.js";
import { startServer } from "../../llm/server.js";
import { esi3d, esi3dAsync as runAsync } from "./helpers.js";

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
      res.end(JSON.stringify(ok ? { id: "x", object: "chat.completion", created: 0, model: "test-model", choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content: `Looking at the graph... {"answer": ${task.answer}, "confidence": 0.7}` } }] } : { error: { message: "prompt lacked the graph" } }));
    });
    try {
      const r = await esi3dAsync(["ask", join(dir, "b"), "--reasoner", "openai:test-model", "--base-url", `${server.url}/v1`, "--no-cache", "--show-prompt"], { OPENAI_API_KEY: "sk-test-secret" });
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(r.stdout).toMatch(/--- prompt ---[\s\S]*=== system ===[\s\S]*=== user ===[\s\S]*--- end of prompt ---/);
      expect(r.stdout).toMatch(/reply:\n  Looking at the graph/);
      expect(r.stdout).toMatch(new RegExp(`answer: ${task.answer} \\(confidence 0.7\\)`));
      expect(r.stdout).toContain(`correct: yes (truth: ${task.answer})`);
      expect(r.stdout + r.stderr).not.toContain("sk-test-secret");
      expect(server.requests.length).toBe(1);
      // a question of one's own is answered but not scored
      const q = await esi3dAsync(["ask", join(dir, "b"), "--reasoner", "openai:test-model", "--base-url", `${server.url}/v1`, "--no-cache", "--question", "How many objects are there?", "--options", "3,4,5,6"], { OPENAI_API_KEY: "k" });
      expect(q.code, q.stderr).toBe(0);
      expect(q.stdout).not.toMatch(/correct:/);
    } finally {
      await server.close();
    }
  });
});
