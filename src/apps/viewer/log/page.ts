/**
 * The run log viewer's page (GET /items): every item of every served run in one list, searched (question,
 * reply and trace) and filtered (run, subcategory, paradigm, arm, reasoner, outcome) and sorted by any column
 * in the browser, and one item in full beside it (prompt, replies, parsed answer, error, usage, graph quality,
 * links to its 3D page and to the question with every arm). The token and cost totals per reasoner head the
 * page. The page is static; its script fetches /api/items and /api/usage once and /api/item per item
 * opened, and writes every value as text (textContent), never as markup: replies and prompts are arbitrary text.
 */
import { escapeHtml } from "../page.js";
import { OUTCOMES, type ServedRun } from "./data.js";

/** Colours and type shared with the question page. */
export const LOG_STYLE = `
body{font:13px/1.4 system-ui,sans-serif;background:#15171c;color:#e6e8ee;margin:0}a{color:#8fc7ff}
header{padding:10px 16px;border-bottom:1px solid #2e323c}header h1{font-size:16px;margin:0 0 4px}header p{margin:0;color:#9aa1b1}
select,input{background:#252932;color:#e6e8ee;border:1px solid #3a3f4b;border-radius:4px;padding:2px 4px}
table{border-collapse:collapse}th{text-align:left;color:#9aa1b1;border-bottom:1px solid #2e323c;padding:4px 6px;white-space:nowrap}
td{border-bottom:1px solid #262a33;padding:4px 6px;vertical-align:top}td.r,th.r{text-align:right;font-variant-numeric:tabular-nums}
.o{padding:0 5px;border-radius:3px;font-size:12px;white-space:nowrap}
.o-correct{background:rgba(46,204,113,.3)}.o-wrong{background:rgba(231,76,60,.35)}.o-invalid,.o-empty{background:rgba(255,159,26,.3)}.o-error{background:rgba(255,64,200,.3)}.o-unanswerable,.o-unscored{background:#2e323c}
pre{white-space:pre-wrap;word-break:break-word;background:#1b1e24;border:1px solid #2e323c;border-radius:4px;padding:6px 8px;margin:4px 0 10px}
h2{font-size:14px;margin:14px 0 4px}h3{font-size:12px;color:#9aa1b1;margin:8px 0 2px}dl{display:grid;grid-template-columns:max-content 1fr;gap:2px 10px;margin:0}dt{color:#9aa1b1}dd{margin:0}
.note{color:#9aa1b1;font-style:italic}
`;

const STYLE = `${LOG_STYLE}
#usage{padding:6px 16px;border-bottom:1px solid #2e323c}#usage summary{cursor:pointer;color:#9aa1b1}#usage table{margin:4px 0}
#filters{display:flex;flex-wrap:wrap;gap:10px;padding:8px 16px;border-bottom:1px solid #2e323c;align-items:center}
#filters label{color:#9aa1b1}#search{width:22em}
main{display:flex;height:calc(100vh - 150px)}#list{flex:1 1 69%;overflow:auto}#detail{flex:1 1 31%;overflow:auto;border-left:1px solid #2e323c;padding:8px 14px}
#list table{width:100%;font-size:12px}#list td,#list th{padding:3px 5px}#list th{position:sticky;top:0;background:#1b1e24;cursor:pointer;user-select:none}#list th:hover{color:#e6e8ee}
#list th[aria-sort=ascending]::after{content:" ▲"}#list th[aria-sort=descending]::after{content:" ▼"}
tr.item{cursor:pointer}tr.item:hover{background:#1f232b}tr.item.open{background:#263041}
#list td{white-space:nowrap}#list td.w{white-space:normal;overflow-wrap:anywhere;min-width:6em}#list td.q{white-space:normal;min-width:13em;max-width:30em}td.q div{display:-webkit-box;-webkit-line-clamp:2;-webkit-box-orient:vertical;overflow:hidden}
.imgs img{max-width:180px;margin:2px;border:1px solid #2e323c}
`;

/** The list's columns: the row field each shows and sorts by, its header, and whether it is a number. */
const LOG_COLUMNS: ReadonlyArray<{ field: string; title: string; numeric: boolean; unit?: string }> = [
  // short titles (the tooltip names each in full): the list shares the screen with the item's detail
  { field: "run", title: "run", numeric: false },
  { field: "task_id", title: "task", numeric: false },
  { field: "question", title: "question", numeric: false },
  { field: "paradigm", title: "paradigm", numeric: false },
  { field: "arm", title: "arm", numeric: false },
  { field: "reasoner", title: "reasoner", numeric: false },
  { field: "outcome", title: "outcome", numeric: false },
  { field: "answer", title: "answer", numeric: false },
  { field: "truth", title: "truth", numeric: false },
  { field: "confidence", title: "conf.", numeric: true, unit: "%" },
  { field: "match", title: "match", numeric: false },
  { field: "f1", title: "F1", numeric: true },
  { field: "tokens", title: "tokens", numeric: true },
];

/** The client: search, filters, sorting, the list, the detail pane, the totals. Plain ES2020, no build step. */
const SCRIPT = `
"use strict";
const FILTERS = ["run", "subcategory", "paradigm", "arm", "reasoner", "outcome"];
const OUTCOME_ORDER = ${JSON.stringify(OUTCOMES)};
const COLUMNS = ${JSON.stringify(LOG_COLUMNS)};
let rows = [];
let openKey = null;
let sort = { field: null, dir: 1 };
const $ = (id) => document.getElementById(id);
function el(tag, text, cls) { const e = document.createElement(tag); if (text !== undefined && text !== null) e.textContent = String(text); if (cls) e.className = cls; return e; }
const rowId = (r) => r.run + "\\u0000" + r.key;
function fillSelect(name) {
  const sel = $("f-" + name);
  if (!sel) return;
  const values = [...new Set(rows.map((r) => r[name]))];
  values.sort(name === "outcome" ? (a, b) => OUTCOME_ORDER.indexOf(a) - OUTCOME_ORDER.indexOf(b) : undefined);
  for (const v of values) { const o = el("option", v + " (" + rows.filter((r) => r[name] === v).length + ")"); o.value = v; sel.appendChild(o); }
  sel.addEventListener("change", render);
}
/** a cell's text: confidence as a percentage, F1 to two places, a dash for none */
function cellText(c, v) {
  if (v === null || v === undefined) return "–";
  if (c.field === "confidence") return (v * 100).toFixed(0) + " %";
  if (c.field === "f1") return v.toFixed(2);
  return v;
}
let rowEls = [];
/** The rows are built once; the search, a filter or the sort only shows, hides or moves them (a run has thousands). */
function build() {
  const body = $("rows");
  body.textContent = "";
  const cols = COLUMNS.filter((c) => c.field !== "run" || $("f-run"));
  rowEls = rows.map((r) => {
    const tr = el("tr", undefined, "item");
    tr.dataset.key = r.key;
    tr.dataset.run = r.run;
    for (const c of cols) {
      if (c.field === "outcome") { const o = el("td"); o.appendChild(el("span", r.outcome, "o o-" + r.outcome)); tr.appendChild(o); continue; }
      if (c.field === "question") { const q = el("td", undefined, "q"); q.appendChild(el("div", r.question)); q.title = r.question; tr.appendChild(q); continue; }
      tr.appendChild(el("td", cellText(c, r[c.field]), c.numeric ? "r" : c.field === "task_id" || c.field === "run" ? "w" : undefined));
    }
    tr.addEventListener("click", () => openItem(r.run, r.key));
    body.appendChild(tr);
    return tr;
  });
  for (const th of document.querySelectorAll("#list th[data-sort]")) th.addEventListener("click", () => setSort(th.dataset.sort));
}
function setSort(field) {
  sort = sort.field === field ? { field, dir: -sort.dir } : { field, dir: 1 };
  applySort();
  render();
}
/** Numbers numerically (none last), text by locale; ties keep the run's order. */
function applySort() {
  const order = rows.map((r, i) => i);
  if (sort.field) {
    const c = COLUMNS.find((x) => x.field === sort.field);
    order.sort((a, b) => {
      const x = rows[a][sort.field], y = rows[b][sort.field];
      if (x === null || x === undefined) return y === null || y === undefined ? a - b : 1;
      if (y === null || y === undefined) return -1;
      const d = c && c.numeric ? x - y : sort.field === "outcome" ? OUTCOME_ORDER.indexOf(x) - OUTCOME_ORDER.indexOf(y) : String(x).localeCompare(String(y), undefined, { numeric: true });
      return d * sort.dir || a - b;
    });
  }
  const body = $("rows");
  for (const i of order) body.appendChild(rowEls[i]);
  for (const th of document.querySelectorAll("#list th[data-sort]")) {
    if (th.dataset.sort === sort.field) th.setAttribute("aria-sort", sort.dir > 0 ? "ascending" : "descending");
    else th.removeAttribute("aria-sort");
  }
}
function render() {
  const want = FILTERS.filter((f) => $("f-" + f)).map((f) => [f, $("f-" + f).value]).filter(([, v]) => v !== "");
  const q = $("search").value.trim().toLowerCase();
  let shown = 0;
  rows.forEach((r, i) => {
    const show = want.every(([f, v]) => r[f] === v) && (!q || (r.question + "\\n" + r.reply + "\\n" + r.key).toLowerCase().includes(q));
    rowEls[i].hidden = !show;
    rowEls[i].classList.toggle("open", rowId(r) === openKey);
    if (show) shown++;
  });
  $("count").textContent = shown + " of " + rows.length + " items";
  const p = new URLSearchParams();
  for (const [f, v] of want) p.set(f, v);
  if (q) p.set("q", $("search").value.trim());
  if (sort.field) p.set("sort", (sort.dir < 0 ? "-" : "") + sort.field);
  if (openKey) { const [run, key] = openKey.split("\\u0000"); p.set("item", key); if ($("f-run")) p.set("itemrun", run); }
  history.replaceState(null, "", "#" + p.toString());
}
function section(parent, title) { parent.appendChild(el("h2", title)); }
function pre(parent, text, id) { const p = el("pre", text); if (id) p.id = id; parent.appendChild(p); return p; }
function facts(parent, pairs) { const dl = el("dl"); for (const [k, v] of pairs) { dl.appendChild(el("dt", k)); dl.appendChild(el("dd", v === null || v === undefined ? "–" : typeof v === "object" ? JSON.stringify(v) : v)); } parent.appendChild(dl); }
async function openItem(run, key) {
  openKey = run + "\\u0000" + key;
  render();
  const d = $("detail");
  d.textContent = "loading…";
  const res = await fetch("/api/item?key=" + encodeURIComponent(key) + "&run=" + encodeURIComponent(run));
  if (!res.ok) { d.textContent = await res.text(); return; }
  const it = await res.json();
  const r = it.record;
  d.textContent = "";
  d.dataset.key = key;
  d.dataset.run = run;
  d.appendChild(el("h2", r.key));
  const links = el("p");
  const qa = el("a", "this question: every arm and reasoner side by side"); qa.href = it.question_page; qa.id = "question-link"; links.appendChild(qa);
  if (it.page) { links.appendChild(document.createTextNode(" · ")); const a = el("a", "the task's 3D page"); a.href = it.page; a.id = "page-link"; links.appendChild(a); }
  d.appendChild(links);
  section(d, "Question");
  pre(d, r.question, "question");
  facts(d, [["run", it.run], ["subcategory", r.subcategory], ["options", r.options.join(" | ")], ["truth", r.truth], ["answer format", r.answer_format]]);
  section(d, "Answer");
  facts(d, [["outcome", it.outcome], ["status", r.status], ["answer", r.answer], ["confidence", r.confidence === null ? null : (r.confidence * 100).toFixed(0) + " %"], ["correct", r.correct], ["method", r.method], ["match", r.match === undefined ? null : r.match], ["structured", r.structured ? r.structured.answer : null], ["reasoner", r.reasoner], ["served model", r.served_model]]);
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
  r.raw.forEach((t, i) => { d.appendChild(el("h3", (r.prompt_hash ? "reply " : "trace ") + (i + 1))); pre(d, t).classList.add("reply"); });
  section(d, "Usage and time");
  const u = r.usage;
  facts(d, [["input tokens", u ? u.input_tokens : null], ["output tokens", u ? u.output_tokens : null], ["calls", r.calls ? r.calls.length : null], ["cached calls", r.calls ? r.calls.filter((c) => c.cached).length : null], ["reprompted", r.reprompted], ["timings (ms)", Object.entries(r.timings_ms).map(([k, v]) => k + " " + Math.round(v)).join(", ")]]);
  if (r.graph_quality) { section(d, "Graph quality"); facts(d, Object.entries(r.graph_quality).map(([k, v]) => [k.replace(/_/g, " ") + (k.endsWith("_m") ? " (m)" : /rate|precision|recall|f1/.test(k) ? " (share of 1)" : ""), v === null ? null : Math.round(v * 1000) / 1000])); }
}
const int = (n) => n.toLocaleString("en-US");
async function usage() {
  const res = await fetch("/api/usage");
  const u = await res.json();
  const box = $("usage");
  const all = u.runs.flatMap((x) => x.rows.map((row) => ({ run: x.run, ...row })));
  const sum = (k) => all.reduce((s, r) => s + r[k], 0);
  const summary = el("summary", all.length ? "Tokens and cost: " + int(sum("input_tokens")) + " input and " + int(sum("output_tokens")) + " output tokens over " + int(sum("calls")) + " model calls" + (u.prices ? "; prices from " + u.prices : "; cost unknown (no price table: esi3d inspect RUN --serve --prices FILE)") : "Tokens and cost: no model calls (the served runs' reasoners are offline programs)");
  box.appendChild(summary);
  if (!all.length) return;
  const t = el("table"); t.dataset.testid = "usage";
  const head = ["run", "reasoner", "items", "calls", "cached", "input tokens", "output tokens", "billed input", "billed output", "cost"];
  const tr0 = el("tr"); for (const h of head) tr0.appendChild(el("th", h, h === "run" || h === "reasoner" || h === "cost" ? undefined : "r")); t.appendChild(tr0);
  for (const r of all) {
    const tr = el("tr");
    for (const v of [r.run, r.reasoner]) tr.appendChild(el("td", v));
    for (const k of ["items", "calls", "cached_calls", "input_tokens", "output_tokens", "billed_input_tokens", "billed_output_tokens"]) tr.appendChild(el("td", int(r[k]), "r"));
    tr.appendChild(el("td", r.cost ? r.cost.amount.toFixed(4) + " " + r.cost.currency : r.cost_note));
    t.appendChild(tr);
  }
  box.appendChild(t);
}
async function main() {
  const res = await fetch("/api/items");
  rows = await res.json();
  const q = new URLSearchParams(location.hash.slice(1));
  for (const f of FILTERS) fillSelect(f);
  for (const f of FILTERS) if (q.get(f) && $("f-" + f)) $("f-" + f).value = q.get(f);
  if (q.get("q")) $("search").value = q.get("q");
  $("search").addEventListener("input", render);
  build();
  const s = q.get("sort");
  if (s) { sort = { field: s.replace(/^-/, ""), dir: s.startsWith("-") ? -1 : 1 }; applySort(); }
  render();
  await usage();
  document.body.dataset.ready = "1";
  if (q.get("item")) openItem(q.get("itemrun") || rows[0].run, q.get("item"));
}
main();
`;

/** What the short column titles stand for. */
const COLUMN_TIPS: Record<string, string> = {
  confidence: "the reasoner's stated confidence (%)",
  f1: "the 3D arm's graph: node F1 over the observed objects",
  tokens: "input + output tokens of the item's model calls",
  match: "how the answer was matched to an option",
};

const FILTER_LABELS: Array<[string, string]> = [
  ["run", "run"],
  ["subcategory", "subcategory"],
  ["paradigm", "paradigm"],
  ["arm", "arm"],
  ["reasoner", "reasoner"],
  ["outcome", "outcome"],
];

/** The page over the served runs; `pricesFile` names the price table the costs come from (none: unknown). */
export function logPageHtml(runs: readonly ServedRun[], pricesFile: string | null): string {
  const several = runs.length > 1;
  const selects = FILTER_LABELS.filter(([id]) => id !== "run" || several)
    .map(([id, label]) => `<label>${label} <select id="f-${id}" data-filter="${id}"><option value="">all</option></select></label>`)
    .join("");
  const heads = LOG_COLUMNS.filter((c) => c.field !== "run" || several)
    .map((c) => `<th data-sort="${c.field}"${c.numeric ? ' class="r"' : ""} title="sort by ${COLUMN_TIPS[c.field] ?? c.title}">${c.title}</th>`)
    .join("");
  const items = runs.reduce((n, s) => n + s.run.records.length, 0);
  const named = runs
    .map((s) => `${escapeHtml(s.label)} (reasoner ${escapeHtml(s.run.config.reasoner.join(", "))}, <a href="${escapeHtml(s.base)}/">graphs by task</a>)`)
    .join(" · ");
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>esi3d items — ${escapeHtml(runs.map((s) => s.label).join(", "))}</title><style>${STYLE}</style></head><body data-prices="${escapeHtml(pricesFile ?? "")}">
<header><h1>esi3d items</h1><p>${named} · ${items} item(s)</p></header>
<details id="usage"></details>
<div id="filters"><label>search <input id="search" type="search" placeholder="question, reply, trace or key"></label>${selects}<span id="count"></span></div>
<main><div id="list"><table data-testid="items"><thead><tr>${heads}</tr></thead><tbody id="rows"></tbody></table></div>
<div id="detail"><p class="note">Open an item to see its prompt, replies, answer and graph; click a column's title to sort by it.</p></div></main>
<script>${SCRIPT}</script></body></html>`;
}
