/** Active episodes: the Episode tab (the steps and the one shown) and the step bar over the 3D view. */
import type { ActiveStep } from "../../../eval/records.js";
import type { Variant } from "../types.js";
import { fix, h } from "./dom.mjs";
import type { Page } from "./page.mjs";

function stepRecord(v: Variant, k: number): ActiveStep {
  return v.episode!.record.active!.steps[k - 1]!;
}

const answerText = (s: ActiveStep) =>
  (s.answer ?? (s.status === "parsed" ? "not sure" : s.status)) +
  (s.confidence === null ? "" : ` (${fix(s.confidence * 100, 0)} %)`) +
  (s.correct === null ? "" : s.correct ? " ✓" : " ✗");
/** What happened after a step: its action, or the world changing (the replay says so: worldChange), or none. */
const actionText = (s: ActiveStep, worldChange: string | null) =>
  (s.action ?? worldChange ?? (s.valid ? "–" : `invalid: ${s.requested_action}`)) + (s.blocked ? " (blocked)" : "");

/** Nodes of the graph the agent decided on at step k (the stored graph's at the last step; null for the 2D arm). */
function stepNodeCount(v: Variant, k: number): number | null {
  return v.episode!.steps[k - 1]!.nodes?.length ?? null;
}

export function renderStepBar(page: Page, stepBar: HTMLElement): void {
  const v = page.state.variant;
  if (!v?.episode || page.state.step === null) {
    stepBar.hidden = true;
    return;
  }
  const n = v.episode.steps.length,
    k = page.state.step,
    s = stepRecord(v, k),
    nodes = stepNodeCount(v, k);
  stepBar.hidden = false;
  stepBar.replaceChildren(
    h("button", { "data-testid": "step-prev", title: "previous step (←)", disabled: k <= 1, onclick: () => page.setStep(k - 1) }, "◀"),
    h("input", {
      type: "range",
      min: 1,
      max: n,
      value: k,
      "data-testid": "step-slider",
      title: "step through the episode",
      oninput: (e: Event) => page.setStep(Number((e.target as HTMLInputElement).value)),
    }),
    h("button", { "data-testid": "step-next", title: "next step (→)", disabled: k >= n, onclick: () => page.setStep(k + 1) }, "▶"),
    h(
      "span",
      { class: "steptext", "data-testid": "step-label" },
      h("b", {}, `step ${k}/${n}`),
      ` · ${v.episode.steps[k - 1]!.views} view(s) · `,
      nodes === null ? "no graph (2D arm)" : h("span", { "data-testid": "step-nodes" }, `${nodes} node(s)`),
      ` · ${answerText(s)} · then `,
      h("span", { class: s.blocked ? "blocked" : "", "data-testid": "step-action" }, actionText(s, v.episode.steps[k - 1]!.world_change)),
    ),
  );
}

export function episodeTab(page: Page, v: Variant): HTMLElement {
  const e = v.episode!,
    a = e.record.active!,
    k = page.state.step ?? e.steps.length;
  const s = stepRecord(v, k),
    nodes = e.steps[k - 1]!.nodes;
  const view = v.views[e.steps[k - 1]!.views - 1];
  const img = view
    ? h("img", {
        class: "stepview",
        src: view.thumb,
        width: view.thumb_width,
        height: view.thumb_height,
        alt: `view ${view.index}`,
        title: `the view the agent decided on (view ${view.index})`,
      })
    : null;
  const list = h(
    "table",
    { class: "nodes steps", "data-testid": "steps-table" },
    h("thead", {}, h("tr", {}, h("th", {}, "step"), h("th", {}, "action"), h("th", {}, "answer"), h("th", {}, "nodes"), h("th", {}, "seen"))),
    h(
      "tbody",
      {},
      ...a.steps.map((x, i) =>
        h(
          "tr",
          { class: `${x.step === k ? "sel" : ""} ${x.blocked ? "blockedrow" : ""}`, onclick: () => page.setStep(x.step), "data-testid": "step-row" },
          h("td", { class: "r" }, String(x.step)),
          h("td", {}, actionText(x, e.steps[i]!.world_change)),
          h("td", {}, answerText(x)),
          h("td", { class: "r" }, e.steps[i]!.nodes === null ? "–" : String(e.steps[i]!.nodes!.length)),
          h("td", {}, x.relevant_seen ? "all" : "not yet"),
        ),
      ),
    ),
  );
  return h(
    "div",
    { class: "episode", "data-testid": "episode" },
    h(
      "p",
      {},
      `agent ${a.agent} · ${a.steps_used} step(s), ${v.views.length} view(s) · stopped by ${a.stop_reason}${a.forced_choice ? " (then a forced choice)" : ""} · final answer ${e.record.answer ?? "–"} (truth ${e.record.truth})`,
    ),
    h("h3", {}, `Step ${k}`, s.blocked ? h("span", { class: "pill", style: "--c: #ff4d4d" }, "blocked") : null),
    img,
    h(
      "dl",
      { "data-testid": "step-detail" },
      h("dt", {}, "pose"),
      h(
        "dd",
        {},
        `(${s.pose.position.map((x) => fix(x, 2)).join(", ")}), yaw ${fix((s.pose.yaw * 180) / Math.PI, 0)}°, pitch ${fix((s.pose.pitch * 180) / Math.PI, 0)}°`,
      ),
      h("dt", {}, "action"),
      h(
        "dd",
        {},
        actionText(s, e.steps[k - 1]!.world_change),
        s.requested_action !== s.action ? h("small", {}, ` requested: ${s.requested_action}`) : null,
        s.reprompted ? h("small", {}, " · re-prompted") : null,
      ),
      h("dt", {}, "answer"),
      h("dd", { "data-testid": "step-answer" }, answerText(s)),
      h("dt", {}, "confidence"),
      h("dd", {}, s.confidence === null ? "–" : `${fix(s.confidence * 100, 0)} %`),
      h("dt", {}, "graph"),
      h(
        "dd",
        {},
        nodes === null
          ? "none (the 2D arm sees the views only)"
          : `${nodes.length} node(s), ${nodes.filter((n) => n.flagged_duplicate).length} flagged possible duplicate${k === e.steps.length ? " — the stored graph (Nodes tab)" : " — boxes in 3D; the Nodes tab shows the final graph"}`,
      ),
      h("dt", {}, "all seen"),
      h("dd", {}, s.relevant_seen ? "every object the question needs has been seen" : "not yet every object the question needs"),
      h("dt", {}, "reasoning"),
      h("dd", { "data-testid": "step-reasoning" }, s.reasoning || "–"),
    ),
    s.trace.length
      ? h(
          "details",
          {},
          h("summary", {}, v.arm === "3d" && e.record.reasoner.startsWith("symbolic") ? "program trace" : "trace / replies"),
          h("pre", { class: "raw" }, s.trace.join("\n")),
        )
      : null,
    h(
      "p",
      { class: "muted" },
      `replayed at inspect time in ${(e.replay_ms / 1000).toFixed(1)} s (built-in simulator${v.arm === "3d" ? ", and the memory updated view by view" : ""}), checked against the record${v.arm === "3d" ? " and the stored graph" : ""}. Keys: ← → step, Home / End first and last.`,
    ),
    list,
  );
}
