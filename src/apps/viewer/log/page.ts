/**
 * The run log viewer's page (GET /items): every item of the run in one list, filtered by subcategory,
 * paradigm, arm, reasoner and outcome in the browser, and one item in full beside it (prompt, replies, parsed answer,
 * error, usage, graph quality, the link to its 3D page). The page is static; its script fetches
 * /api/items once and /api/item?key=… per item opened, and writes every value as text (textContent),
 * never as markup, since replies and prompts are arbitrary text.
 */
import { escapeHtml } from "../page.js";
import { OUTCOMES } from "./data.js";

const STYLE = `
body{font:13px/1.4 system-ui,sans-serif;background:#15171c;color:#e6e8ee;margin:0}a{color:#8fc7ff}
header{padding:10px 16px;border-bottom:1px solid #2e323c}header h1{font-size:16px;margin:0 0 4px}header p{margin:0;color:#9aa1b1}
#filters{display:flex;flex-wrap:wrap;gap:10px;padding:8px 16px;border-bottom:1px solid #2e323c;align-items:center}
#filters label{color:#9aa1b1}select{background:#252932;color:#e6e8ee;border:1px solid #3a3f4b;border-radius:4px;padding:2px 4px}
main{display:flex;height:calc(100vh - 110px)}#list{flex:1 1 55%;overflow:auto}#detail{flex:1 1 45%;overflow:auto;border-left:1px solid #2e323c;padding:8px 14px}
table{border-collapse:collapse;width:100%}th{position:sticky;top:0;background:#1b1e24;text-align:left;color:#9aa1b1;border-bottom:1px solid #2e323c;padding:4px 6px}
td{border-bottom:1px solid #262a33;padding:4px 6px;vertical-align:top}tr.item{cursor:pointer}tr.item:hover{background:#1f232b}tr.item.open{background:#263041}
td.r{text-align:right;font-variant-numeric:tabular-nums}.o{padding:0 5px;border-radius:3px;font-size:12px}
.o-correct{background:rgba(46,204,113,.3)}.o-wrong{background:rgba(231,76,60,.35)}.o-invalid,.o-empty{background:rgba(255,159,26,.3)}.o-error{background:rgba(255,64,200,.3)}.o-unanswerable,.o-unscored{background:#2e323c}
pre{white-space:pre-wrap;word-break:break-word;background:#1b1e24;border:1px solid #2e323c;border-radius:4px;padding:6px 8px;margin:4px 0 10px}
h2{font-size:14px;margin:14px 0 4px}h3{font-size:12px;color:#9aa1b1;margin:8px 0 2px}dl{display:grid;grid-template-columns:max-content 1fr;gap:2px 10px;margin:0}dt{color:#9aa1b1}dd{margin:0}
.imgs img{max-width:180px;margin:2px;border:1px solid #2e323c}.note{color:#9aa1b1;font-style:italic}
`;

/** The client: filters, the list, the detail pane. Plain ES2020, no build step. */
const SCRIPT = `
"use strict";
const FILTERS = ["subcategory", "paradigm", "arm", "reasoner", "outcome"];
const OUTCOME_ORDER = ${JSON.stringify(OUTCOMES)};
let rows = [];
let openKey = null;
const $ = (id) => document.getElementById(id);
function el(tag, text, cls) { const e = document.createElement(tag); if (text !== undefined && text !== null) e.textContent = String(text); if (cls) e.className = cls; return e; }
function fillSelect(name) {
  const sel = $("f-" + name);
  const values = [...new Set(rows.map((r) => r[name]))];
  values.sort(name === "outcome" ? (a, b) => OUTCOME_ORDER.indexOf(a) - OUTCOME_ORDER.indexOf(b) : undefined);
  for (const v of values) { const o = el("option", v + " (" + rows.filter((r) => r[name] === v).length + ")"); o.value = v; sel.appendChild(o); }
  sel.addEventListener("change", render);
}
let rowEls = [];
/** The rows are built once; a filter only shows or hides them (a run has thousands). */
function build() {
  const body = $("rows");
  body.textContent = "";
  rowEls = rows.map((r) => {
    const tr = el("tr", undefined, "item");
    tr.dataset.key = r.key;
    tr.appendChild(el("td", r.task_id));
    tr.appendChild(el("td", r.paradigm));
    tr.appendChild(el("td", r.arm));
    const o = el("td"); o.appendChild(el("span", r.outcome, "o o-" + r.outcome)); tr.appendChild(o);
    tr.appendChild(el("td", r.answer === null ? "–" : r.answer));
    tr.appendChild(el("td", r.truth));
    tr.appendChild(el("td", r.tokens === null ? "–" : r.tokens, "r"));
    tr.appendChild(el("td", r.question));
    tr.addEventListener("click", () => openItem(r.key));
    body.appendChild(tr);
    return tr;
  });
}
function render() {
  const want = FILTERS.map((f) => [f, $("f-" + f).value]).filter(([, v]) => v !== "");
  let shown = 0;
  rows.forEach((r, i) => {
    const show = want.every(([f, v]) => r[f] === v);
    rowEls[i].hidden = !show;
    rowEls[i].classList.toggle("open", r.key === openKey);
    if (show) shown++;
  });
  $("count").textContent = shown + " of " + rows.length + " items";
  const q = new URLSearchParams();
  for (const [f, v] of want) q.set(f, v);
  if (openKey) q.set("item", openKey);
  history.replaceState(null, "", "#" + q.toString());
}
function section(parent, title) { parent.appendChild(el("h2", title)); }
function pre(parent, text, id) { const p = el("pre", text); if (id) p.id = id; parent.appendChild(p); return p; }
function facts(parent, pairs) { const dl = el("dl"); for (const [k, v] of pairs) { dl.appendChild(el("dt", k)); dl.appendChild(el("dd", v === null || v === undefined ? "–" : typeof v === "object" ? JSON.stringify(v) : v)); } parent.appendChild(dl); }
async function openItem(key) {
  openKey = key;
  render();
  const d = $("detail");
  d.textContent = "loading…";
  const res = await fetch("/api/item?key=" + encodeURIComponent(key));
  if (!res.ok) { d.textContent = await res.text(); return; }
  const it = await res.json();
  const r = it.record;
  d.textContent = "";
  d.dataset.key = key;
  d.appendChild(el("h2", r.key));
  if (it.page) { const a = el("a", "open the task's 3D page"); a.href = it.page; a.id = "page-link"; d.appendChild(a); }
  section(d, "Question");
  pre(d, r.question, "question");
  facts(d, [["subcategory", r.subcategory], ["options", r.options.join(" | ")], ["truth", r.truth], ["answer format", r.answer_format]]);
  section(d, "Answer");
  facts(d, [["outcome", it.outcome], ["status", r.status], ["answer", r.answer], ["confidence", r.confidence], ["correct", r.correct], ["method", r.method], ["structured", r.structured ? r.structured.answer : null], ["reasoner", r.reasoner], ["served model", r.served_model]]);
  if (r.error) { section(d, "Error"); facts(d, [["class", r.error.class]]); pre(d, r.error.message, "error"); }
  section(d, "Prompt");
  if (it.prompt) {
    d.appendChild(el("h3", "system"));
    pre(d, it.prompt.system, "prompt-system");
    d.appendChild(el("h3", "user"));
    pre(d, it.prompt.user, "prompt-user");
    if (it.prompt.images.length) {
      d.appendChild(el("h3", it.prompt.images.length + " image(s)"));
      const box = el("div", undefined, "imgs");
      for (const im of it.prompt.images) { const img = el("img"); img.src = im.url; img.alt = "view " + im.view; img.title = "view " + im.view + ", sha256 " + im.sha256; box.appendChild(img); }
      d.appendChild(box);
    }
    d.appendChild(el("div", it.prompt.file, "note"));
  } else d.appendChild(el("div", it.prompt_note, "note"));
  if (r.reprompt) { d.appendChild(el("h3", "re-prompt (appended to the user text)")); pre(d, r.reprompt, "reprompt"); }
  section(d, r.prompt_hash ? "Replies" : "Program trace");
  if (!r.raw.length) d.appendChild(el("div", "none", "note"));
  r.raw.forEach((t, i) => { d.appendChild(el("h3", "reply " + (i + 1))); pre(d, t).classList.add("reply"); });
  section(d, "Usage and time");
  const u = r.usage;
  facts(d, [["input tokens", u ? u.input_tokens : null], ["output tokens", u ? u.output_tokens : null], ["calls", r.calls ? r.calls.length : null], ["reprompted", r.reprompted], ["timings (ms)", Object.entries(r.timings_ms).map(([k, v]) => k + " " + Math.round(v)).join(", ")]]);
  if (r.graph_quality) { section(d, "Graph quality"); facts(d, Object.entries(r.graph_quality).map(([k, v]) => [k, v === null ? null : Math.round(v * 1000) / 1000])); }
}
async function main() {
  const res = await fetch("/api/items");
  rows = await res.json();
  const q = new URLSearchParams(location.hash.slice(1));
  for (const f of FILTERS) fillSelect(f);
  for (const f of FILTERS) if (q.get(f)) $("f-" + f).value = q.get(f);
  build();
  render();
  document.body.dataset.ready = "1";
  if (q.get("item")) openItem(q.get("item"));
}
main();
`;

const FILTER_LABELS: Array<[string, string]> = [
  ["subcategory", "subcategory"],
  ["paradigm", "paradigm"],
  ["arm", "arm"],
  ["reasoner", "reasoner"],
  ["outcome", "outcome"],
];

/** The page; `shownDir` names the run, `reasoner` its reasoners (comma-separated). */
export function logPageHtml(shownDir: string, reasoner: string, items: number): string {
  const selects = FILTER_LABELS.map(([id, label]) => `<label>${label} <select id="f-${id}" data-filter="${id}"><option value="">all</option></select></label>`).join("");
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>esi3d items — ${escapeHtml(shownDir)}</title><style>${STYLE}</style></head><body>
<header><h1>esi3d items</h1><p>${escapeHtml(shownDir)} · reasoner ${escapeHtml(reasoner)} · ${items} item(s) · <a href="/">graphs by task</a></p></header>
<div id="filters">${selects}<span id="count"></span></div>
<main><div id="list"><table data-testid="items"><thead><tr><th>task</th><th>paradigm</th><th>arm</th><th>outcome</th><th>answer</th><th>truth</th><th>tokens</th><th>question</th></tr></thead><tbody id="rows"></tbody></table></div>
<div id="detail"><p class="note">Open an item to see its prompt, replies, answer and graph.</p></div></main>
<script>${SCRIPT}</script></body></html>`;
}
