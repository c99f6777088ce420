/** `--reasoner NAME`: symbolic | symbolic-2d | shortcut | openai:<model> | gemini:<model>. */
import { InputError } from "../../core/errors.js";
import { createSymbolicReasoner } from "./symbolic.js";
import { createSymbolic2dReasoner } from "./symbolic2d.js";
import { createShortcutReasoner } from "./shortcut.js";
import { createLlmReasoner, type LlmReasonerOptions } from "./llm.js";
import type { Reasoner } from "./types.js";
import { isLlmReasoner, REASONER_FORMS } from "./spec.js";

/** `llm`: an LLM reasoner's options (src/reason/llm.ts); the offline reasoners take none. */
export function createReasoner(spec: string, llm?: LlmReasonerOptions): Reasoner {
  if (spec === "symbolic") return createSymbolicReasoner();
  if (spec === "symbolic-2d") return createSymbolic2dReasoner();
  if (spec === "shortcut") return createShortcutReasoner();
  if (isLlmReasoner(spec)) {
    if (!llm) throw new Error(`createReasoner("${spec}"): an LLM reasoner needs its model-call and prompt options`);
    return createLlmReasoner(spec, llm);
  }
  throw new InputError(`reasoner: expected ${REASONER_FORMS}, got "${spec}"`, { field: "reasoner" });
}
