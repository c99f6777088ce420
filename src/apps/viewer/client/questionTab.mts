/** The Question tab: the question and its truth, the prompt, and each arm's answer record with its replies or trace. */
import type { ItemRecord } from "../../../eval/records.js";
import type { Variant } from "../types.js";
import { fix, h } from "./dom.mjs";
import { linkNodes, type Page } from "./page.mjs";

function recordBlock(page: Page, title: string, r: ItemRecord | null, testid: string): HTMLElement {
  if (!r)
    return h(
      "div",
      { class: "record" },
      h("h3", {}, title),
      h(
        "p",
        { class: "muted" },
        page.meta.run
          ? "no record for this paradigm and source in items.jsonl"
          : "a frame bundle's page has no answer records (inspect a run directory for them)",
      ),
    );
  const verdict =
    r.correct === null
      ? h("span", { class: "pill", style: "--c: #888" }, r.status)
      : r.correct
        ? h("span", { class: "pill", style: "--c: #2ecc71" }, "correct")
        : h("span", { class: "pill", style: "--c: #e74c3c" }, "wrong");
  return h(
    "div",
    { class: "record", "data-testid": testid },
    h("h3", {}, title, " ", verdict),
    h(
      "dl",
      {},
      h("dt", {}, "reasoner"),
      h("dd", {}, r.reasoner),
      h("dt", {}, "answer"),
      h("dd", {}, `${r.answer ?? "–"} (truth ${r.truth})`),
      h("dt", {}, "status"),
      h("dd", {}, `${r.status}${r.reprompted ? ", re-prompted" : ""}`),
      h("dt", {}, "confidence"),
      h("dd", {}, r.confidence === null ? "–" : `${fix(r.confidence * 100, 0)} %`),
      h("dt", {}, "method"),
      h("dd", {}, r.method),
      r.prompt_hash ? h("dt", {}, "prompt hash") : null,
      r.prompt_hash ? h("dd", { class: "mono" }, r.prompt_hash) : null,
    ),
    h("h4", {}, r.reasoner.startsWith("symbolic") ? "program trace" : "replies"),
    h("pre", { class: "raw", "data-testid": `${testid}-raw` }, ...r.raw.flatMap((line, i) => [i ? "\n" : "", ...linkNodes(page, line)])),
  );
}

export function questionTab(page: Page, v: Variant): HTMLElement {
  const t = page.meta.task;
  return h(
    "div",
    {},
    h("p", { class: "question", "data-testid": "question" }, t.question),
    t.options.length ? h("p", {}, "options: ", ...t.options.map((o) => h("span", { class: o === t.answer ? "opt truth" : "opt" }, o))) : null,
    h("p", {}, "truth: ", h("b", {}, t.answer)),
    recordBlock(page, `3D arm: ${v.source} graph`, v.record3d, "record3d"),
    h(
      "details",
      { open: v.prompt.origin !== "hypothetical" },
      h("summary", {}, `Prompt (${v.prompt.origin})`),
      h("p", { class: "muted" }, v.prompt.note),
      v.prompt.text ? h("pre", { class: "prompt", "data-testid": "prompt" }, v.prompt.text) : null,
    ),
    v.record2d ? recordBlock(page, "2D baseline (no graph)", v.record2d, "record2d") : null,
  );
}
