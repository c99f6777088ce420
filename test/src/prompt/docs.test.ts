import { readFileSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { DOC_PATH, docExamples, renderDoc } from "./docExamples.js";

describe("docs/prompts.md", () => {
  it("shows exactly what the prompt code produces for the example graphs", () => {
    const doc = readFileSync(DOC_PATH, "utf8");
    const fresh = renderDoc(doc, docExamples());
    if (process.env.ESI3D_UPDATE_DOCS === "1" && fresh !== doc) writeFileSync(DOC_PATH, fresh);
    else expect(doc, "run ESI3D_UPDATE_DOCS=1 npx vitest run test/src/prompt/docs.test.ts").toBe(fresh);
  });
});
