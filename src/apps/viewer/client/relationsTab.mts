/** The Relations tab: the graph's relations, each marked in or not in the true graph, and the true ones missing. */
import type { RelationDiagnosis } from "../../../../scenegraph/diagnosisSchema.js";
import type { Variant } from "../types.js";
import { fix, h } from "./dom.mjs";
import { nodeIndex, nodeLink, type Page } from "./page.mjs";

/** The relations of a graph with no diagnosis: listed as built, none marked right or wrong. */
function undiagnosedRelationsTab(page: Page, v: Variant): HTMLElement {
  const label = (id: string) => v.graph!.nodes.find((n) => n.id === id)?.label ?? id;
  return h(
    "div",
    {},
    h("p", {}, `${v.graph!.relations.length} relations (no task record, so none is judged against a true graph). Click one to draw it.`),
    h(
      "ul",
      { class: "relations", "data-testid": "relations" },
      ...v.graph!.relations.map((r) =>
        h(
          "li",
          {
            onclick: () => {
              const a = nodeIndex(page.state, r.subject),
                b = nodeIndex(page.state, r.object);
              page.selectNode(a, false);
              page.viewer.showRelation(a, b, true);
            },
          },
          nodeLink(page, r.subject, `${r.subject} ${label(r.subject)}`),
          h("b", {}, ` ${r.predicate.replace(/_/g, " ")} `),
          nodeLink(page, r.object, `${r.object} ${label(r.object)}`),
          h("small", {}, ` margin ${fix(r.margin_m)} m`),
        ),
      ),
    ),
  );
}

export function relationsTab(page: Page, v: Variant): HTMLElement {
  if (!v.diagnosis) return undiagnosedRelationsTab(page, v);
  const rels = v.diagnosis!.relations.filter((r) => !page.state.wrongOnly || !r.correct);
  const label = (id: string) => v.graph!.nodes.find((n) => n.id === id)?.label ?? id;
  const objName = (id: number) => page.meta.task.objects.find((o) => o.id === id)?.name ?? `o${id}`;
  const right = v.diagnosis!.relations.filter((r) => r.correct).length;
  const row = (r: RelationDiagnosis) =>
    h(
      "li",
      {
        class: r.correct ? "ok" : "wrong",
        "data-testid": r.correct ? "relation-right" : "relation-wrong",
        onclick: () => {
          const a = nodeIndex(page.state, r.subject),
            b = nodeIndex(page.state, r.object);
          page.selectNode(a, false);
          page.viewer.showRelation(a, b, r.correct);
        },
      },
      h("span", { class: "mark", title: r.correct ? "in the true graph" : "not in the true graph" }, r.correct ? "✓" : "✗"),
      nodeLink(page, r.subject, `${r.subject} ${label(r.subject)}`),
      h("b", {}, ` ${r.predicate.replace(/_/g, " ")} `),
      nodeLink(page, r.object, `${r.object} ${label(r.object)}`),
      h("small", {}, ` margin ${fix(r.margin_m)} m${r.mapped ? ` · ${objName(r.mapped[0])} / ${objName(r.mapped[1])}` : " · an end is not a true object"}`),
    );
  return h(
    "div",
    {},
    h(
      "p",
      {},
      `${right} of ${v.diagnosis!.relations.length} relations are in the true graph; ${v.diagnosis!.missing_relations.length} true relations are missing. Click one to draw it.`,
    ),
    h(
      "label",
      {},
      h("input", {
        type: "checkbox",
        checked: page.state.wrongOnly,
        onchange: (e: Event) => ((page.state.wrongOnly = (e.target as HTMLInputElement).checked), page.renderPanel()),
      }),
      " wrong only",
    ),
    h("ul", { class: "relations", "data-testid": "relations" }, ...rels.map(row)),
    v.diagnosis!.missing_relations.length
      ? h(
          "details",
          {},
          h("summary", {}, `Missing true relations (${v.diagnosis!.missing_relations.length})`),
          h(
            "ul",
            { class: "relations" },
            ...v.diagnosis!.missing_relations.map((r) =>
              h(
                "li",
                { class: "missing" },
                h("span", { class: "mark" }, "–"),
                `${objName(r.subject)} `,
                h("b", {}, r.predicate.replace(/_/g, " ")),
                ` ${objName(r.object)}`,
              ),
            ),
          ),
        )
      : null,
  );
}
