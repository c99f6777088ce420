/** The Nodes tab: the node table (status chips filter it, headers sort it) and the true objects no node recovered. */
import type { Variant } from "../types.js";
import type { NodeStatus } from "../../../../scenegraph/diagnosisSchema.js";
import { MISSED_COLOR, nodeColor, statusColor } from "../palette.js";
import { css, h } from "./dom.mjs";
import { diagOf, explanationOf, flagsOf, pill, type Page, type SortState } from "./page.mjs";
import { STATUSES } from "./statuses.mjs";

/**
 * A status chip filters to its status: with every status shown, a click shows only its own; then a click adds or
 * removes its status, and removing the last one shown shows them all again.
 */
function chipFilter(shown: ReadonlySet<string>, status: string): Set<string> {
  if (shown.size === STATUSES.length) return new Set([status]);
  const next = new Set(shown);
  if (next.has(status)) next.delete(status);
  else next.add(status);
  return next.size ? next : new Set(STATUSES);
}

export function nodesTab(page: Page, v: Variant): HTMLElement {
  if (!v.diagnosis) return undiagnosedNodesTab(page, v);
  const diagnosis = v.diagnosis,
    graph = v.graph!;
  const m = diagnosis.metrics;
  // a diagnosis written before objects could move has no stale count: "–", not a 0 it never counted
  const counts: Record<NodeStatus, number | undefined> = {
    matched: m.matched,
    duplicate: m.duplicates,
    merged: m.merged,
    hallucinated: m.hallucinated,
    stale: m.stale,
    mirror_ghost: m.mirror_ghosts,
  };
  const missed = diagnosis.objects.filter((o) => o.status !== "matched");
  const chips = h(
    "div",
    { class: "chips" },
    // a mirror ghost's chip only where the scene has a mirror (its diagnosis counts them)
    ...STATUSES.filter((s) => s !== "mirror_ghost" || m.mirror_ghosts !== undefined).map((s) =>
      h(
        "button",
        {
          class: `chip ${page.state.filter.has(s) ? "on" : ""}`,
          style: `--c: ${css(statusColor(s))}`,
          title:
            page.state.filter.size === STATUSES.length
              ? `show only ${s} nodes`
              : page.state.filter.has(s)
                ? `hide ${s} nodes (the last one shown: show all)`
                : `show ${s} nodes too`,
          "data-testid": `chip-${s}`,
          "aria-pressed": String(page.state.filter.size < STATUSES.length && page.state.filter.has(s)),
          onclick: () => {
            page.state.filter = chipFilter(page.state.filter, s);
            page.eachViewer((w) => w.setStatusFilter(page.state.filter));
            page.renderPanel();
          },
        },
        `${s} `,
        h("b", { "data-testid": `count-${s}` }, String(counts[s] ?? "–")),
      ),
    ),
    h(
      "span",
      { class: "chip static", style: `--c: ${css(MISSED_COLOR)}`, title: "true objects no node recovered" },
      "missed ",
      h("b", { "data-testid": "count-missed" }, String(missed.length)),
    ),
  );
  const rows = graph.nodes.map((n, k) => ({ n, k, d: diagOf(page.state, n.id)! })).filter((r) => page.state.filter.has(r.d.status));
  const key = (r: (typeof rows)[number]): string | number => {
    switch (page.state.sort.col) {
      case "id":
        return r.k;
      case "label":
        return r.n.label;
      case "status":
        return STATUSES.indexOf(r.d.status);
      case "object":
        return r.d.object_name ?? "~";
      case "points":
        return r.n.raw_point_count;
      case "views":
        return r.n.views.length;
    }
  };
  rows.sort((a, b) => {
    const x = key(a),
      y = key(b);
    return (x < y ? -1 : x > y ? 1 : a.k - b.k) * page.state.sort.dir;
  });
  const th = (col: SortState["col"], label: string) =>
    h(
      "th",
      {
        class: `sortable ${page.state.sort.col === col ? (page.state.sort.dir > 0 ? "asc" : "desc") : ""}`,
        "data-testid": `sort-${col}`,
        onclick: () => {
          page.state.sort = { col, dir: page.state.sort.col === col ? (-page.state.sort.dir as 1 | -1) : 1 };
          page.renderPanel();
        },
      },
      label,
    );
  const table = h(
    "table",
    { class: "nodes", "data-testid": "node-table" },
    h(
      "thead",
      {},
      h(
        "tr",
        {},
        th("id", "node"),
        th("label", "label"),
        th("status", "status"),
        th("object", "true object"),
        th("points", "points"),
        th("views", "views"),
        h("th", {}, "flags"),
      ),
    ),
    h(
      "tbody",
      {},
      ...rows.map(({ n, k, d }) =>
        h(
          "tr",
          { class: k === page.state.selected ? "sel" : "", "data-node": n.id, "data-status": d.status, onclick: () => page.selectNode(k) },
          h("td", {}, h("i", { class: "swatch", style: `background: ${css(nodeColor(k))}` }), n.id),
          h("td", {}, n.label, d.label_correct === false ? h("span", { class: "warn", title: "label differs from the true object's category" }, " ≠") : null),
          h("td", { title: explanationOf(page.state, n.id)?.why ?? "" }, pill(d.status)),
          // a mirror ghost matches no object: it shows the one it is the reflection of
          h(
            "td",
            {},
            d.object_name ??
              (d.mirrors_object === undefined ? "–" : `mirror of ${diagnosis.objects.find((o) => o.id === d.mirrors_object)?.name ?? `#${d.mirrors_object}`}`),
          ),
          h("td", { class: "r" }, n.raw_point_count.toLocaleString()),
          h("td", { class: "r" }, n.views.length),
          h("td", { class: "flags" }, ...flagsOf(page, n, d)),
        ),
      ),
    ),
  );
  const missedTable = missed.length
    ? h(
        "div",
        {},
        h("h3", {}, "Missed objects"),
        h(
          "table",
          { class: "nodes", "data-testid": "missed-table" },
          h("thead", {}, h("tr", {}, h("th", {}, "object"), h("th", {}, "category"), h("th", {}, "status"), h("th", {}, "pixels seen"), h("th", {}, "why"))),
          h(
            "tbody",
            {},
            ...missed.map((o) =>
              h(
                "tr",
                {
                  onclick: () => {
                    const t = page.meta.task.objects.find((x) => x.id === o.id);
                    if (t) page.viewer.focus(t.centre, t.extent);
                  },
                  title: "click to fly to its true box",
                },
                h("td", {}, o.name),
                h("td", {}, o.category),
                h("td", {}, pill(o.status)),
                h("td", { class: "r" }, o.observed_px.toLocaleString()),
                h("td", { class: "why", "data-testid": "missed-why", "data-object": o.id }, v.explanations?.objects.find((x) => x.id === o.id)?.why ?? "–"),
              ),
            ),
          ),
        ),
      )
    : null;
  return h(
    "div",
    {},
    chips,
    table,
    rows.length === 0 ? h("p", { class: "muted" }, "no node with the selected statuses") : null,
    changesTable(page, v),
    missedTable,
  );
}

/** What a diff graph of a changing world's phases says changed (a removal has no node: a click flies to where it was). */
function changesTable(page: Page, v: Variant): HTMLElement | null {
  const time = v.graph?.time;
  if (!time) return null;
  const fmt = (p: readonly number[]) => `(${p.map((x) => x.toFixed(2)).join(", ")})`;
  const head = h("h3", {}, `Time: ${time.phases.join(" → ")} (${time.mode === "diff" ? "diffed" : "fused: changes not tracked"})`);
  if (time.mode === "fuse" || time.changes.length === 0)
    return h(
      "div",
      {},
      head,
      h("p", { class: "muted" }, time.mode === "fuse" ? "every phase's views in one graph: a moved object may appear twice" : "no change seen"),
    );
  return h(
    "div",
    {},
    head,
    h(
      "table",
      { class: "nodes", "data-testid": "changes-table" },
      h("thead", {}, h("tr", {}, h("th", {}, "change"), h("th", {}, "label"), h("th", {}, "by"), h("th", {}, "where"), h("th", {}, "node"))),
      h(
        "tbody",
        {},
        ...time.changes.map((c) =>
          h(
            "tr",
            { "data-change": c.change, onclick: () => page.viewer.focus(c.at, [0.4, 0.4, 0.4]), title: "click to fly there" },
            h("td", {}, h("span", { class: `flag time ${c.change}` }, c.change)),
            h("td", {}, c.was ? `${c.label} (was ${c.was})` : c.label),
            h("td", {}, time.phases[c.phase] ?? `phase ${c.phase + 1}`),
            h("td", {}, c.from ? `${fmt(c.from)} → ${fmt(c.at)}` : fmt(c.at)),
            h("td", {}, c.node ?? "–"),
          ),
        ),
      ),
    ),
  );
}

/**
 * The node table of a graph with no diagnosis (a bundle without a task record: nothing to judge it against):
 * no status and no true object, only what the graph itself says.
 */
function undiagnosedNodesTab(page: Page, v: Variant): HTMLElement {
  const graph = v.graph!;
  return h(
    "div",
    {},
    h("p", { class: "muted", "data-testid": "no-diagnosis" }, "No task record, so no ground truth: the nodes are shown as built, without a diagnosis."),
    h(
      "table",
      { class: "nodes", "data-testid": "node-table" },
      h("thead", {}, h("tr", {}, h("th", {}, "node"), h("th", {}, "label"), h("th", {}, "points"), h("th", {}, "views"), h("th", {}, "flags"))),
      h(
        "tbody",
        {},
        ...graph.nodes.map((n, k) =>
          h(
            "tr",
            { class: k === page.state.selected ? "sel" : "", "data-node": n.id, onclick: () => page.selectNode(k) },
            h("td", {}, h("i", { class: "swatch", style: `background: ${css(nodeColor(k))}` }), n.id),
            h("td", {}, n.label),
            h("td", { class: "r" }, n.raw_point_count.toLocaleString()),
            h("td", { class: "r" }, n.views.length),
            h("td", { class: "flags" }, ...flagsOf(page, n, undefined)),
          ),
        ),
      ),
    ),
  );
}
