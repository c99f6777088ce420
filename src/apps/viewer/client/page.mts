/**
 * What the panel's tabs share with the page that wires them: the page state, the views and the actions a tab
 * may take (select a node, redraw the panel, go to a step), and the small helpers every tab draws with.
 */
import type { NodeDiagnosis } from "../../../../scenegraph/diagnosisSchema.js";
import type { GraphNode } from "../../../../scenegraph/types.js";
import type { NodeExplanation, PageMeta, Variant } from "../types.js";
import { MISSED_COLOR, statusColor } from "../palette.js";
import type { DecodedCloud } from "./data.mjs";
import { css, h } from "./dom.mjs";
import type { Viewer } from "./view3d.mjs";

export type Tab = "nodes" | "relations" | "question" | "evidence" | "episode";

export interface SortState {
  col: "id" | "label" | "status" | "object" | "points" | "views";
  dir: 1 | -1;
}

export interface State {
  meta: PageMeta;
  key: string;
  variant: Variant | null;
  cloud: DecodedCloud | null;
  selected: number | null;
  tab: Tab;
  filter: Set<string>;
  sort: SortState;
  wrongOnly: boolean;
  showAllThumbs: Set<string>;
  error: string | null;
  /** Active episodes: the step shown (1-based); null without an episode. */
  step: number | null;
}

/** The page as a tab sees it. */
export interface Page {
  state: State;
  meta: PageMeta;
  /** The main 3D view. */
  viewer: Viewer;
  /** Settings apply to the main view and, when shown, the linked one. */
  eachViewer(f: (v: Viewer) => void): void;
  selectNode(k: number | null, switchTab?: boolean): void;
  renderPanel(): void;
  setStep(k: number): void;
}

/** What a point's confidence is: VGGT's depth confidence (1 + e^x, so at least 1; no unit), 1 for ground-truth depth. */
export const CONFIDENCE_UNIT =
  "a point's confidence: VGGT's depth confidence (1 + exp of its logit, so at least 1, without a unit) or the noisy source's synthetic one; 1 for ground-truth depth";

export function diagOf(state: State, id: string): NodeDiagnosis | undefined {
  return state.variant?.diagnosis?.nodes.find((d) => d.node === id);
}

export function nodeIndex(state: State, id: string | null): number | null {
  if (id === null || !state.variant?.graph) return null;
  const k = state.variant.graph.nodes.findIndex((n) => n.id === id);
  return k >= 0 ? k : null;
}

export function explanationOf(state: State, id: string): NodeExplanation | undefined {
  return state.variant?.explanations?.nodes.find((x) => x.node === id);
}

export function pill(statusName: string, text = statusName): HTMLElement {
  const c = statusName.startsWith("missed") ? MISSED_COLOR : statusColor(statusName);
  return h("span", { class: "pill", style: `--c: ${css(c)}` }, text);
}

export function nodeLink(page: Page, id: string, text?: string): HTMLElement {
  const k = nodeIndex(page.state, id);
  const n = k !== null ? page.state.variant!.graph!.nodes[k]! : null;
  return h("a", { class: "nodelink", href: "#", onclick: (e: Event) => (e.preventDefault(), page.selectNode(k)) }, text ?? (n ? `${n.id} ${n.label}` : id));
}

/** Text with node ids (n12) turned into links that select the node. */
export function linkNodes(page: Page, text: string): Array<string | HTMLElement> {
  const out: Array<string | HTMLElement> = [];
  let last = 0;
  for (const m of text.matchAll(/\bn\d+\b/g)) {
    if (nodeIndex(page.state, m[0]) === null) continue;
    out.push(text.slice(last, m.index), nodeLink(page, m[0], m[0]));
    last = m.index! + m[0].length;
  }
  out.push(text.slice(last));
  return out;
}

export function flagsOf(page: Page, n: GraphNode, d: NodeDiagnosis | undefined): Array<HTMLElement | string> {
  const out: Array<HTMLElement | string> = [];
  if (d?.twin) out.push(h("span", { class: "flag dup" }, "twin ", nodeLink(page, d.twin, d.twin)));
  // short words that wrap in the panel's column; the graph's own flag names in the tooltip
  if (n.flags.possible_duplicate_of.length)
    out.push(
      h(
        "span",
        { class: "flag", title: "possible_duplicate_of: the graph builder's evidence flag" },
        "maybe dup of ",
        ...n.flags.possible_duplicate_of.flatMap((id, i) => [i ? ", " : "", nodeLink(page, id, id)]),
      ),
    );
  if (n.flags.low_support) out.push(h("span", { class: "flag", title: "low_support: few views or points" }, "low support"));
  if (n.flags.fragment) out.push(h("span", { class: "flag", title: "fragment: part of an object cut by an occluder" }, "fragment"));
  // a graph of a changing world's phases: when the node was seen, and what the diff says happened to it
  const phases = page.state.variant?.graph?.time?.phases;
  if (n.time && phases)
    out.push(
      h(
        "span",
        {
          class: `flag time ${n.time.change ?? ""}`,
          title: "time: the phases whose views saw the node, and (diff graphs) what changed",
          "data-testid": "time-flag",
        },
        `seen ${n.time.seen_in.map((p) => phases[p] ?? `phase ${p + 1}`).join(", ")}${n.time.change ? ` · ${n.time.change}` : ""}`,
      ),
    );
  if (d?.cause?.component === "change") out.push(h("span", { class: "flag dup", title: d.cause.text }, "split by time"));
  return out.length ? out : ["–"];
}
