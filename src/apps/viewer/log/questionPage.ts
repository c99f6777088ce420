/**
 * One question with every arm and reasoner of every served run side by side (GET /question?task=<id>): per
 * paradigm a row of cards, one per item (run, arm, reasoner), each with its outcome, answer and confidence,
 * its graph's quality (3D arms: node F1, duplicate, hallucinated, merged and stale nodes and missed objects), tokens, the
 * reply or the program's trace, and links to the item and its 3D page. The script fetches /api/question and
 * writes every value as text.
 */
import { escapeHtml } from "../page.js";
import type { ServedRun } from "./data.js";
import { LOG_STYLE } from "./page.js";

const STYLE = `${LOG_STYLE}
main{padding:8px 16px}.facts{margin:6px 0 10px}
.arms{display:flex;flex-wrap:wrap;gap:10px;align-items:stretch}
.card{flex:0 0 300px;background:#1b1e24;border:1px solid #2e323c;border-radius:6px;padding:8px 10px;display:flex;flex-direction:column;gap:4px}
.card h3{margin:0;color:#e6e8ee;font-size:13px}.card .sub{color:#9aa1b1;font-size:12px}.card pre{max-height:180px;overflow:auto;font-size:12px;margin:2px 0}
.card.correct{border-color:rgba(46,204,113,.6)}.card.wrong{border-color:rgba(231,76,60,.7)}
`;

const SCRIPT = `
"use strict";
const $ = (id) => document.getElementById(id);
function el(tag, text, cls) { const e = document.createElement(tag); if (text !== undefined && text !== null) e.textContent = String(text); if (cls) e.className = cls; return e; }
const num = (v, d) => (v === null || v === undefined ? "–" : Number(v).toFixed(d));
function facts(parent, pairs) { const dl = el("dl"); for (const [k, v] of pairs) { dl.appendChild(el("dt", k)); dl.appendChild(el("dd", v === null || v === undefined ? "–" : v)); } parent.appendChild(dl); }
async function main() {
  const task = new URLSearchParams(location.search).get("task");
  const res = await fetch("/api/question?task=" + encodeURIComponent(task));
  const m = $("main");
  if (!res.ok) { m.textContent = await res.text(); return; }
  const q = await res.json();
  m.appendChild(el("h2", q.task_id + " · " + q.subcategory.replace(/_/g, " ")));
  const qp = el("pre", q.question); qp.id = "question"; m.appendChild(qp);
  const f = el("div", undefined, "facts"); facts(f, [["options", q.options.join(" | ")], ["truth", q.truth]]); m.appendChild(f);
  for (const p of q.paradigms) {
    m.appendChild(el("h2", p.paradigm + " views: " + p.arms.length + " item(s)"));
    const row = el("div", undefined, "arms"); row.dataset.paradigm = p.paradigm;
    for (const a of p.arms) {
      const c = el("div", undefined, "card " + a.outcome); c.dataset.testid = "arm"; c.dataset.key = a.key; c.dataset.run = a.run;
      c.appendChild(el("h3", a.arm + " · " + a.reasoner));
      c.appendChild(el("div", "run " + a.run, "sub"));
      const o = el("div"); o.appendChild(el("span", a.outcome, "o o-" + a.outcome)); c.appendChild(o);
      const g = a.graph_quality;
      facts(c, [
        ["answer", a.answer],
        ["confidence", a.confidence === null ? null : (a.confidence * 100).toFixed(0) + " %"],
        ["match", a.match],
        ["graph", g ? "node F1 " + num(g.f1_observed, 2) + "; " + g.nodes + " nodes: " + g.duplicates + " duplicate, " + g.hallucinated + " hallucinated, " + g.merged + " merged" + (g.stale ? ", " + g.stale + " stale" : "") + "; " + ((g.missed_lost || 0) + (g.missed_unseen || 0)) + " objects missed" : "no graph (" + (a.arm === "2d" ? "images or masks only" : "question only") + ")"],
        ["tokens", a.tokens],
      ]);
      const r = el("pre", a.raw.join("\\n\\n") || "(no reply)"); r.className = "reply"; c.appendChild(r);
      const links = el("div", undefined, "sub");
      const item = el("a", "the item"); item.href = "/items#item=" + encodeURIComponent(a.key) + "&itemrun=" + encodeURIComponent(a.run); links.appendChild(item);
      if (a.page) { links.appendChild(document.createTextNode(" · ")); const pg = el("a", "3D page"); pg.href = a.page; links.appendChild(pg); }
      c.appendChild(links);
      row.appendChild(c);
    }
    m.appendChild(row);
  }
  document.body.dataset.ready = "1";
}
main();
`;

export function questionPageHtml(taskId: string, runs: readonly ServedRun[]): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>esi3d question — ${escapeHtml(taskId)}</title><style>${STYLE}</style></head><body>
<header><h1>esi3d question</h1><p>every arm and reasoner of ${runs.map((s) => escapeHtml(s.label)).join(", ")} · <a href="/items">every item</a></p></header>
<main id="main"></main>
<script>${SCRIPT}</script></body></html>`;
}
