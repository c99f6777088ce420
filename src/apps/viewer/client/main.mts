/**
 * The inspection page: a three.js view of one scene graph over its point cloud, and a side panel with the
 * node table, relations, the question with its prompt and answer, and the evidence of the selected node.
 * Data: src/apps/viewer/types.ts (embedded in the page, or fetched from `esi3d inspect --serve`).
 */
import styleText from "./style.css";
import type { NodeDiagnosis, RelationDiagnosis } from "../../../../scenegraph/diagnosisSchema.js";
import type { GraphNode } from "../../../../scenegraph/types.js";
import type { ItemRecord } from "../../../eval/records.js";
import type { NodeExplanation, PageMeta, StatusFact, Variant, VariantRef } from "../types.js";
import { MISSED_COLOR, nodeColor, statusColor } from "../palette.js";
import { decodeCloud, loadVariant, readMeta, viewLabels, type DecodedCloud } from "./data.mjs";
import { css, fix, h, pct } from "./dom.mjs";
import { COLOR_MODES, MAX_POINT_PX, MIN_POINT_PX, STEP_BOX_COLOR, STEP_FLAGGED_COLOR, Viewer, viewColor, type ColorMode, type Toggles } from "./view3d.mjs";
import type { PickedPoint } from "./measure.mjs";
import type { CameraPreset } from "./cameraPresets.mjs";
import { LinkedView } from "./compare.mjs";
import type { ActiveStep } from "../../../eval/records.js";
import type { Hooks } from "./hooks.mjs";

const STATUSES = ["matched", "duplicate", "merged", "hallucinated"] as const;
type Tab = "nodes" | "relations" | "question" | "evidence" | "episode";
/** Thumbnails shown per node before "show all" (a node seen in 30 views would fill the panel). */
const THUMBS_SHOWN = 8;
/** Outline colours in thumbnails: the node's own pixels yellow, its twin's cyan (as in 3D). */
const OUTLINE_NODE: [number, number, number] = [255, 225, 77];
const OUTLINE_TWIN: [number, number, number] = [58, 215, 255];
/** Pixels that are not the node's are darkened by this factor in its thumbnails. */
const OUTSIDE_DIM = 0.55;
/** Thumbnails zoom on the node: its pixel box padded to this multiple of its size ... */
const CROP_PAD = 2.4;
/** ... and at least this many thumbnail pixels wide (a 20-pixel node is not blown up 13×). */
const CROP_MIN_PX = 64;

interface SortState {
  col: "id" | "label" | "status" | "object" | "points" | "views";
  dir: 1 | -1;
}

interface State {
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

const t0 = performance.now();
const meta = readMeta();

/** Variants fetched and unpacked, by key: started before the page is built, so inflating overlaps it. */
const unpacked = new Map<string, Promise<{ v: Variant; cloud: DecodedCloud }>>();
function unpack(key: string): Promise<{ v: Variant; cloud: DecodedCloud }> {
  let p = unpacked.get(key);
  if (!p) {
    p = loadVariant(meta, key).then(async (v) => ({ v, cloud: await decodeCloud(v) }));
    p.catch(() => unpacked.delete(key));
    unpacked.set(key, p);
  }
  return p;
}
void unpack(meta.initial).catch(() => undefined);
const state: State = {
  meta,
  key: meta.initial,
  variant: null,
  cloud: null,
  selected: null,
  tab: "nodes",
  filter: new Set(STATUSES),
  sort: { col: "id", dir: 1 },
  wrongOnly: false,
  showAllThumbs: new Set(),
  error: null,
  step: null,
};
const hooks: Hooks = {
  ready: false,
  error: null,
  timings: { script_start: t0 },
  key: meta.initial,
  select: (id) => selectNode(id === null ? null : (state.variant?.graph?.nodes.findIndex((n) => n.id === id) ?? -1)),
  screenPoint: (id) => {
    const n = state.variant?.graph?.nodes.find((x) => x.id === id);
    if (!n) return null;
    const p = viewer.project(n.box.centre);
    if (!p) return null;
    const r = viewer.renderer.domElement.getBoundingClientRect();
    return { x: r.left + p.x, y: r.top + p.y };
  },
  show: (key) => show(key, false),
  step: null,
  setStep: (k) => setStep(k),
  stepShown: () => viewer.stepShown(),
  camera: () => viewer.cameraState(),
  compareCamera: () => linked.active?.cameraState() ?? null,
  compare: () => ({ key: linked.key, ready: linked.ready }),
  pointSize: () => viewer.drawnPointSize(),
  picks: () => viewer.picks(),
  cloudPoint: (i) => (state.cloud && i >= 0 && i < state.cloud.count ? { position: [state.cloud.position[3 * i]!, state.cloud.position[3 * i + 1]!, state.cloud.position[3 * i + 2]!], node: state.cloud.node[i]! > 0 ? state.cloud.node[i]! - 1 : null } : null),
  project: (p) => {
    const s = viewer.project(p);
    if (!s) return null;
    const r = viewer.renderer.domElement.getBoundingClientRect();
    return { x: r.left + s.x, y: r.top + s.y };
  },
};
window.__esi3d = hooks;

// ---------------------------------------------------------------------------------------------------------
// layout

document.head.appendChild(h("style", {}, styleText));
document.title = meta.title;
const header = h("header", { class: "top" });
const viewport = h("div", { class: "viewport" });
const labelLayer = h("div", { class: "labels" });
const tooltip = h("div", { class: "tooltip", hidden: true });
const status = h("div", { class: "statusline", "data-testid": "statusline" });
const controlsBar = h("div", { class: "controls" });
const stepBar = h("div", { class: "stepbar", hidden: true, "data-testid": "stepbar" });
const legend = h("div", { class: "legend" });
const loading = h("div", { class: "loading" }, "loading…");
const toolsBar = h("div", { class: "tools" });
const readout = h("div", { class: "readout", hidden: true, "data-testid": "pick-readout" });
const panel = h("aside", { class: "panel" });
const tabs = h("nav", { class: "tabs" });
const content = h("div", { class: "content" });
panel.append(tabs, content);
// the colour and toggle bar top left, the tools top right; in a narrow view (side by side) the tools wrap below
viewport.append(labelLayer, h("div", { class: "topbar" }, controlsBar, h("div", { class: "topright" }, toolsBar, readout)), legend, stepBar, status, tooltip, loading);
const mainEl = h("main", {}, viewport, panel);
document.body.replaceChildren(header, mainEl);

let viewer: Viewer;
try {
  viewer = new Viewer(viewport, labelLayer);
} catch (e) {
  fail(`WebGL is not available in this browser, so the 3D view cannot be drawn (${(e as Error).message}). The panel still works.`);
  throw e;
}
viewport.insertBefore(viewer.renderer.domElement, labelLayer);
const linked = new LinkedView(viewer, unpack, meta.task);
mainEl.insertBefore(linked.pane, panel);
/** Settings apply to the main view and, when shown, the linked one. */
const eachViewer = (f: (v: Viewer) => void) => [viewer, linked.active].forEach((v) => v && f(v));
viewer.onPoint = (p) => renderReadout(p === null);
viewer.onPick = (k) => {
  if (k === null) return;
  selectNode(k);
};
viewer.onHover = (k, x, y) => {
  const v = state.variant;
  if (k === null || !v) {
    tooltip.hidden = true;
    return;
  }
  const n = v.graph!.nodes[k]!, d = diagOf(n.id);
  const r = viewport.getBoundingClientRect();
  tooltip.replaceChildren(h("b", {}, `${n.id} ${n.label}`), ` ${d?.status ?? ""}`, d?.object_name ? ` · ${d.object_name}` : "", d?.twin ? ` · twin ${d.twin}` : "", h("br"), `${n.raw_point_count.toLocaleString()} points, ${n.views.length} view(s) — click for evidence`);
  tooltip.style.left = `${x - r.left + 14}px`;
  tooltip.style.top = `${y - r.top + 14}px`;
  tooltip.hidden = false;
};

function fail(message: string): void {
  state.error = message;
  hooks.error = message;
  loading.hidden = false;
  loading.classList.add("error");
  loading.textContent = message;
}

// ---------------------------------------------------------------------------------------------------------
// helpers over the current variant

function diagOf(id: string): NodeDiagnosis | undefined {
  return state.variant?.diagnosis?.nodes.find((d) => d.node === id);
}

function nodeIndex(id: string | null): number | null {
  if (id === null || !state.variant?.graph) return null;
  const k = state.variant.graph.nodes.findIndex((n) => n.id === id);
  return k >= 0 ? k : null;
}

function refOf(key: string): VariantRef | undefined {
  return meta.variants.find((r) => r.key === key);
}

function pill(statusName: string, text = statusName): HTMLElement {
  const c = statusName.startsWith("missed") ? MISSED_COLOR : statusColor(statusName);
  return h("span", { class: "pill", style: `--c: ${css(c)}` }, text);
}

function nodeLink(id: string, text?: string): HTMLElement {
  const k = nodeIndex(id);
  const n = k !== null ? state.variant!.graph!.nodes[k]! : null;
  return h("a", { class: "nodelink", href: "#", onclick: (e: Event) => (e.preventDefault(), selectNode(k)) }, text ?? (n ? `${n.id} ${n.label}` : id));
}

/** Text with node ids (n12) turned into links that select the node. */
function linkNodes(text: string): Array<string | HTMLElement> {
  const out: Array<string | HTMLElement> = [];
  let last = 0;
  for (const m of text.matchAll(/\bn\d+\b/g)) {
    if (nodeIndex(m[0]) === null) continue;
    out.push(text.slice(last, m.index), nodeLink(m[0], m[0]));
    last = m.index! + m[0].length;
  }
  out.push(text.slice(last));
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// header: task, paradigm and source switchers, the numbers

function variantLabel(r: VariantRef): string {
  const answer = r.correct === null ? "" : r.correct ? " · answer ✓" : " · answer ✗";
  if (r.arm === "2d") return `2D arm (no graph) · ${r.steps ?? 0} steps${answer}`;
  return `${r.source} · F1 ${fix(r.f1_observed)} · ${r.duplicates} dup · ${r.hallucinated} hal${r.merged ? ` · ${r.merged} merged` : ""}${answer}`;
}

function renderHeader(): void {
  const v = state.variant;
  const ref = refOf(state.key)!;
  const paradigms = [...new Set(meta.variants.map((r) => r.paradigm))];
  const sources = meta.variants.filter((r) => r.paradigm === ref.paradigm);
  const taskSel =
    meta.tasks.length > 1
      ? h(
          "select",
          { "data-testid": "task-select", title: "task of the run", onchange: (e: Event) => (location.href = (e.target as HTMLSelectElement).value) },
          ...meta.tasks.map((t) => h("option", { value: t.href, selected: t.task_id === meta.task.task_id }, `${t.task_id}`)),
        )
      : h("span", { class: "taskid" }, meta.task.task_id);
  const parSel = h(
    "select",
    {
      "data-testid": "paradigm-select",
      title: "paradigm (view set)",
      onchange: (e: Event) => {
        const p = (e.target as HTMLSelectElement).value;
        const next = meta.variants.find((r) => r.paradigm === p && r.source === ref.source) ?? meta.variants.find((r) => r.paradigm === p)!;
        void show(next.key, false);
      },
    },
    ...paradigms.map((p) => h("option", { value: p, selected: p === ref.paradigm }, `${p} views`)),
  );
  const srcSel = h(
    "select",
    { "data-testid": "source-select", title: "point-cloud source", onchange: (e: Event) => void show((e.target as HTMLSelectElement).value, true) },
    ...sources.map((r) => h("option", { value: r.key, selected: r.key === state.key }, variantLabel(r))),
  );
  const others = ref.arm === "2d" ? [] : sources.filter((r) => r.key !== state.key && r.arm !== "2d");
  const cmpSel = others.length
    ? h(
        "select",
        { "data-testid": "compare-select", title: "show another source beside this one, cameras linked", onchange: (e: Event) => void setCompare((e.target as HTMLSelectElement).value || null) },
        h("option", { value: "" }, "side by side: off"),
        ...others.map((r) => h("option", { value: r.key, selected: r.key === linked.key }, `beside: ${variantLabel(r)}`)),
      )
    : null;
  const m = v?.diagnosis?.metrics;
  const rec = v?.record3d;
  const num = (label: string, value: string | number, testid: string, cls = "") => h("span", { class: `num ${cls}`, "data-testid": testid }, h("small", {}, label), h("b", {}, String(value)));
  const metrics = m
    ? h(
        "div",
        { class: "metrics", "data-testid": "metrics" },
        num("node F1", fix(m.f1_observed), "metric-f1", m.f1_observed < 0.999 ? "bad" : "good"),
        num("nodes", m.nodes, "metric-nodes"),
        num("duplicates", m.duplicates, "metric-duplicates", m.duplicates ? "dup" : ""),
        num("hallucinated", m.hallucinated, "metric-hallucinated", m.hallucinated ? "hal" : ""),
        num("merged", m.merged, "metric-merged", m.merged ? "mer" : ""),
        num("missed", m.missed_lost + m.missed_unseen, "metric-missed", m.missed_lost + m.missed_unseen ? "mis" : ""),
        num("relations P/R", `${pct(m.relation_precision)}/${pct(m.relation_recall)}`, "metric-relations"),
        rec ? num("answer", rec.correct === null ? rec.status : `${rec.answer ?? "–"} ${rec.correct ? "✓" : "✗"}`, "metric-answer", rec.correct ? "good" : "bad") : null,
      )
    : v?.record2d && v.arm === "2d"
      ? h("div", { class: "metrics", "data-testid": "metrics" }, num("answer", v.record2d.correct === null ? v.record2d.status : `${v.record2d.answer ?? "–"} ${v.record2d.correct ? "✓" : "✗"}`, "metric-answer", v.record2d.correct ? "good" : "bad"))
      : h("div", { class: "metrics" });
  const downloads = h(
    "div",
    { class: "downloads" },
    v?.graph ? h("button", { title: "the stored graph and diagnosis (JSON)", onclick: () => downloadGraph() }, "graph.json") : null,
    meta.api && v?.graph ? h("a", { class: "button", href: `${meta.api}export/${state.key}.ply`, title: "full cloud, node colours (binary PLY)" }, "PLY") : null,
    meta.api && v?.graph ? h("a", { class: "button", href: `${meta.api}export/${state.key}.glb`, title: "cloud and boxes, +Y up (GLB)" }, "GLB") : null,
  );
  header.replaceChildren(
    h("div", { class: "brand" }, meta.api ? h("a", { href: meta.home ?? "/" }, "esi3d") : "esi3d", h("small", {}, " inspect")),
    h("div", { class: "switch" }, taskSel, h("span", { class: "sub" }, meta.task.subcategory.replace(/_/g, " ")), parSel, srcSel, cmpSel),
    downloads,
    metrics,
  );
}

/** Shows another source of the paradigm beside the main view (null: off). */
async function setCompare(key: string | null): Promise<void> {
  const r = key ? refOf(key) : undefined;
  try {
    await linked.show(r ? r.key : null, r ? `${r.paradigm} views · ${variantLabel(r)}` : "");
  } catch (e) {
    fail((e as Error).message);
  }
  renderHeader();
}

function downloadGraph(): void {
  const v = state.variant;
  if (!v) return;
  const blob = new Blob([JSON.stringify({ graph: v.graph, diagnosis: v.diagnosis }, null, 1)], { type: "application/json" });
  const a = h("a", { href: URL.createObjectURL(blob), download: `${meta.task.task_id}__${v.key}.json` });
  a.click();
  setTimeout(() => URL.revokeObjectURL(a.href), 1000);
}

// ---------------------------------------------------------------------------------------------------------
// 3D controls, legend, status line

function renderControls(): void {
  const mode = viewer.getColorMode();
  const t = viewer.getToggles();
  const toggle = (k: keyof Toggles, label: string, key: string) =>
    h("label", { title: `toggle (${key.toUpperCase()})` }, h("input", { type: "checkbox", checked: t[k], "data-testid": `toggle-${k}`, onchange: (e: Event) => (eachViewer((w) => w.setToggles({ [k]: (e.target as HTMLInputElement).checked })), renderControls()) }), ` ${label}`);
  controlsBar.replaceChildren(
    h(
      "div",
      { class: "modes" },
      h("small", {}, "colour "),
      ...COLOR_MODES.map((c) => h("button", { class: c.mode === mode ? "on" : "", title: `colour by ${c.label} (${c.key.toUpperCase()})`, "data-testid": `color-${c.mode}`, onclick: () => setColorMode(c.mode) }, c.label)),
    ),
    h("div", { class: "toggles" }, toggle("boxes", "boxes", "b"), toggle("truth", "true boxes", "t"), toggle("frustums", "cameras", "f"), toggle("grid", "grid", "g"), toggle("labels", "labels", "l")),
  );
  toolsBar.replaceChildren(
    h(
      "div",
      { class: "modes" },
      h("small", {}, "camera "),
      ...PRESETS.map((p) => h("button", { title: p.title, "data-testid": `preset-${p.preset}`, onclick: () => viewer.setPreset(p.preset) }, p.label)),
      h("small", {}, " point "),
      h("input", { type: "range", min: MIN_POINT_PX, max: MAX_POINT_PX, step: 1, value: viewer.pointSize, "data-testid": "point-size", title: "point size in pixels ([ ])", oninput: (e: Event) => setPointSize(Number((e.target as HTMLInputElement).value)) }),
      h("small", { "data-testid": "point-size-label" }, `${viewer.pointSize} px`),
    ),
    h(
      "div",
      { class: "modes" },
      state.variant?.arm === "2d" ? null : h("button", { class: viewer.measuring ? "on" : "", "data-testid": "ruler-toggle", title: "ruler: click two points to measure the distance (M)", onclick: () => setMeasuring(!viewer.measuring) }, "ruler"),
      h("button", { "data-testid": "screenshot", title: "download the 3D view as PNG (both views when comparing)", onclick: () => downloadScreenshot() }, "PNG"),
    ),
  );
  const v = state.variant;
  const intermediate = state.step !== null && v?.episode && state.step < v.episode.steps.length;
  const items: HTMLElement[] = v?.arm === "2d"
    ? []
    : intermediate
    ? [h("span", {}, h("i", { style: `background: ${css(STEP_BOX_COLOR)}` }), `node of step ${state.step}'s graph`), h("span", {}, h("i", { style: `background: ${css(STEP_FLAGGED_COLOR)}` }), "flagged possible duplicate")]
    : STATUSES.map((s) => h("span", {}, h("i", { style: `background: ${css(statusColor(s))}` }), s));
  if (v?.episode) items.push(h("span", {}, h("i", { style: "background: #f2f2f2" }), "camera path"), h("span", {}, h("i", { style: "background: #ffe14d" }), "this step"), h("span", {}, h("i", { style: "background: #ff4d4d" }), "blocked move"));
  items.push(h("span", {}, h("i", { class: "dashed" }), "true box"));
  if (v?.arm !== "2d") items.push(h("span", {}, h("i", { style: `background: ${css(MISSED_COLOR)}` }), "missed object"));
  if (mode === "confidence" && v) items.push(h("span", { class: "ramp", title: CONFIDENCE_UNIT }, `point confidence ${fix(v.cloud.conf_min)} `, h("i", { class: "viridis" }), ` ${fix(v.cloud.conf_max)} (≥ 1, unitless)`));
  if (mode === "view" && v) items.push(h("span", {}, h("i", { style: `background: linear-gradient(90deg, ${[0, 0.25, 0.5, 0.75, 1].map((f) => css(viewColor(Math.round(f * (v.views.length - 1)), v.views.length))).join(",")})` }), `views 0–${v.views.length - 1} (frustums match)`));
  items.push(h("span", { class: "scale" }, "grid: 1 m, minor 0.25 m"));
  legend.replaceChildren(...items);
}

function setColorMode(mode: ColorMode): void {
  eachViewer((w) => w.setColorMode(mode));
  renderControls();
}

/** Camera presets (keys 7 top, 1 front, 0 fit: a numeric keypad's top and front, as in Blender). */
const PRESETS: Array<{ preset: CameraPreset; label: string; key: string; title: string }> = [
  { preset: "top", label: "top", key: "7", title: "look straight down (7)" },
  { preset: "front", label: "front", key: "1", title: "level, along the agent's first view (1)" },
  { preset: "fit", label: "fit", key: "0", title: "frame the selected node, or the whole scene (0)" },
];
const PRESET_KEYS: Record<string, CameraPreset> = Object.fromEntries(PRESETS.map((p) => [p.key, p.preset]));

function setPointSize(px: number): void {
  eachViewer((w) => w.setPointSize(px));
  renderControls();
}

function setMeasuring(on: boolean): void {
  viewer.measuring = on;
  if (!on) viewer.clearRuler();
  renderControls();
  renderReadout();
}

/** What a point's confidence is: VGGT's depth confidence (1 + e^x, so at least 1; no unit), 1 for ground-truth depth. */
const CONFIDENCE_UNIT = "a point's confidence: VGGT's depth confidence (1 + exp of its logit, so at least 1, without a unit) or the noisy source's synthetic one; 1 for ground-truth depth";
const xyz = (p: readonly number[]) => `(${p.map((x) => x.toFixed(3)).join(", ")}) m`;

/** What a picked point is: its world coordinates and its node (id, label, status), or none. */
function pointText(p: PickedPoint): string {
  const n = p.node !== null ? state.variant?.graph?.nodes[p.node] : undefined;
  return `${xyz(p.position)} · ${n ? `${n.id} ${n.label} (${diagOf(n.id)?.status ?? "no diagnosis"})` : "in no node"}`;
}

/** The picked point, or the ruler's ends and distance, over the 3D view; `missed`: the last click hit no point. */
function renderReadout(missed = false): void {
  const { point, ruler, distance_m } = viewer.picks();
  if (viewer.measuring) {
    readout.hidden = false;
    const second = ruler.length === 1 ? h("div", {}, "click the second point") : null;
    readout.replaceChildren(
      h("b", {}, "ruler"),
      ruler.length === 0 ? h("div", {}, "click a point") : "",
      ...ruler.map((p, i) => h("div", { "data-testid": `ruler-${"ab"[i]}` }, `${"AB"[i]} ${pointText(p)}`)),
      distance_m !== null ? h("div", {}, "distance ", h("b", { "data-testid": "ruler-distance" }, `${distance_m.toFixed(3)} m`)) : (second ?? ""),
      missed ? h("div", { class: "muted" }, "no point under the last click") : "",
    );
    return;
  }
  readout.hidden = point === null;
  if (point) readout.replaceChildren(h("b", {}, "point "), h("span", { "data-testid": "pick-point" }, pointText(point)));
}

/** Downloads the 3D view as PNG: the main view, and the linked one beside it when comparing. */
function downloadScreenshot(): void {
  const views = [viewer, linked.active].filter((w): w is Viewer => w !== null).map((w) => w.snapshot());
  const out = h("canvas", { width: views.reduce((s, c) => s + c.width, 0), height: Math.max(...views.map((c) => c.height)) });
  const ctx = out.getContext("2d")!;
  let x = 0;
  for (const c of views) {
    ctx.drawImage(c, x, 0);
    x += c.width;
  }
  const name = `${meta.task.task_id}__${state.key}${linked.key ? `__vs__${linked.key}` : ""}.png`;
  out.toBlob((b) => {
    if (!b) return;
    const a = h("a", { href: URL.createObjectURL(b), download: name });
    a.click();
    setTimeout(() => URL.revokeObjectURL(a.href), 1000);
  }, "image/png");
}

function renderStatusLine(): void {
  const v = state.variant;
  if (!v) return;
  const d = v.cloud.downsample;
  const thin = d.method === "voxel" ? ` (one per ${fix((d.voxel_m ?? 0) * 1000, 1)} mm voxel and node: budget ${d.budget.toLocaleString()})` : "";
  const shown = viewer.stepShown();
  const points = v.arm === "2d" ? "the 2D arm builds no cloud" : shown && shown.points < d.shown ? `showing ${shown.points.toLocaleString()} points of the views so far (${d.shown.toLocaleString()} in all, of ${d.total.toLocaleString()})${thin}` : `showing ${d.shown.toLocaleString()} of ${d.total.toLocaleString()} points${thin}`;
  status.title = status.textContent = `${v.paradigm} views (${v.views.length}) · source ${v.source} · ${points} · drag to orbit, right-drag to pan, wheel to zoom${v.graph ? ", click a box" : ""}${v.episode ? " · ← → step through the episode" : ""}`;
}

// ---------------------------------------------------------------------------------------------------------
// panel

function renderTabs(): void {
  const v = state.variant;
  const wrongRel = v?.diagnosis ? v.diagnosis.relations.filter((r) => !r.correct).length : 0;
  const tab = (id: Tab, label: string) => h("button", { class: state.tab === id ? "on" : "", "data-testid": `tab-${id}`, onclick: () => setTab(id) }, label);
  tabs.replaceChildren(
    ...(v?.episode ? [tab("episode", `Episode (${v.episode.steps.length} steps)`)] : []),
    ...(v && !v.graph
      ? []
      : [tab("nodes", `Nodes${v?.graph ? ` (${v.graph.nodes.length})` : ""}`), tab("relations", `Relations${v ? ` (${wrongRel} wrong)` : ""}`)]),
    tab("question", "Question"),
    ...(v && !v.graph ? [] : [tab("evidence", state.selected !== null && v?.graph ? `Evidence: ${v.graph.nodes[state.selected]?.id}` : "Evidence")]),
  );
}

function setTab(t: Tab): void {
  state.tab = t;
  renderPanel();
}

function renderPanel(): void {
  renderTabs();
  const v = state.variant;
  if (!v) {
    content.replaceChildren(h("p", { class: "muted" }, state.error ?? "loading…"));
    return;
  }
  if (!v.graph && state.tab !== "question") state.tab = v.episode ? "episode" : "question";
  if (state.tab === "episode" && !v.episode) state.tab = "nodes";
  const body = state.tab === "episode" ? episodeTab(v) : state.tab === "nodes" ? nodesTab(v) : state.tab === "relations" ? relationsTab(v) : state.tab === "question" ? questionTab(v) : evidenceTab(v);
  content.replaceChildren(body);
}

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

function nodesTab(v: Variant): HTMLElement {
  if (!v.diagnosis) return undiagnosedNodesTab(v);
  const diagnosis = v.diagnosis, graph = v.graph!;
  const m = diagnosis.metrics;
  const counts: Record<string, number> = { matched: m.matched, duplicate: m.duplicates, merged: m.merged, hallucinated: m.hallucinated };
  const missed = diagnosis.objects.filter((o) => o.status !== "matched");
  const chips = h(
    "div",
    { class: "chips" },
    ...STATUSES.map((s) =>
      h(
        "button",
        {
          class: `chip ${state.filter.has(s) ? "on" : ""}`,
          style: `--c: ${css(statusColor(s))}`,
          title: state.filter.size === STATUSES.length ? `show only ${s} nodes` : state.filter.has(s) ? `hide ${s} nodes (the last one shown: show all)` : `show ${s} nodes too`,
          "data-testid": `chip-${s}`,
          "aria-pressed": String(state.filter.size < STATUSES.length && state.filter.has(s)),
          onclick: () => {
            state.filter = chipFilter(state.filter, s);
            eachViewer((w) => w.setStatusFilter(state.filter));
            renderPanel();
          },
        },
        `${s} `,
        h("b", { "data-testid": `count-${s}` }, String(counts[s] ?? 0)),
      ),
    ),
    h("span", { class: "chip static", style: `--c: ${css(MISSED_COLOR)}`, title: "true objects no node recovered" }, "missed ", h("b", { "data-testid": "count-missed" }, String(missed.length))),
  );
  const rows = graph.nodes
    .map((n, k) => ({ n, k, d: diagOf(n.id)! }))
    .filter((r) => state.filter.has(r.d.status));
  const key = (r: (typeof rows)[number]): string | number => {
    switch (state.sort.col) {
      case "id":
        return r.k;
      case "label":
        return r.n.label;
      case "status":
        return STATUSES.indexOf(r.d.status as (typeof STATUSES)[number]);
      case "object":
        return r.d.object_name ?? "~";
      case "points":
        return r.n.raw_point_count;
      case "views":
        return r.n.views.length;
    }
  };
  rows.sort((a, b) => {
    const x = key(a), y = key(b);
    return (x < y ? -1 : x > y ? 1 : a.k - b.k) * state.sort.dir;
  });
  const th = (col: SortState["col"], label: string) =>
    h(
      "th",
      {
        class: `sortable ${state.sort.col === col ? (state.sort.dir > 0 ? "asc" : "desc") : ""}`,
        "data-testid": `sort-${col}`,
        onclick: () => {
          state.sort = { col, dir: state.sort.col === col ? ((-state.sort.dir) as 1 | -1) : 1 };
          renderPanel();
        },
      },
      label,
    );
  const table = h(
    "table",
    { class: "nodes", "data-testid": "node-table" },
    h("thead", {}, h("tr", {}, th("id", "node"), th("label", "label"), th("status", "status"), th("object", "true object"), th("points", "points"), th("views", "views"), h("th", {}, "flags"))),
    h(
      "tbody",
      {},
      ...rows.map(({ n, k, d }) =>
        h(
          "tr",
          { class: k === state.selected ? "sel" : "", "data-node": n.id, "data-status": d.status, onclick: () => selectNode(k) },
          h("td", {}, h("i", { class: "swatch", style: `background: ${css(nodeColor(k))}` }), n.id),
          h("td", {}, n.label, d.label_correct === false ? h("span", { class: "warn", title: "label differs from the true object's category" }, " ≠") : null),
          h("td", { title: explanationOf(n.id)?.why ?? "" }, pill(d.status)),
          h("td", {}, d.object_name ?? "–"),
          h("td", { class: "r" }, n.raw_point_count.toLocaleString()),
          h("td", { class: "r" }, n.views.length),
          h("td", { class: "flags" }, ...flagsOf(n, d)),
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
                    const t = meta.task.objects.find((x) => x.id === o.id);
                    if (t) viewer.focus(t.centre, t.extent);
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
  return h("div", {}, chips, table, rows.length === 0 ? h("p", { class: "muted" }, "no node with the selected statuses") : null, missedTable);
}

function explanationOf(id: string): NodeExplanation | undefined {
  return state.variant?.explanations?.nodes.find((x) => x.node === id);
}

const factValue = (x: number, unit: StatusFact["unit"]) => (unit === "share" ? `${(x * 100).toFixed(1)} %` : unit === "m" ? `${x.toFixed(3)} m` : x.toFixed(3));

/** Why the node has its status: the rule's sentence, and the facts it was judged on beside their thresholds (the decisive one marked). */
/**
 * What made a duplicate or hallucination, as the diagnosis recorded it when the graph was built (the views its
 * points came from, the noise component at work); the rule that gave the status is the block's first line.
 */
function causeLine(d: NodeDiagnosis | undefined): HTMLElement | null {
  if (!d?.cause) return null;
  return h("p", { "data-testid": "cause", "data-component": d.cause.component ?? "" }, h("b", {}, "cause: "), ...linkNodes(d.cause.text));
}

function whyBlock(id: string): HTMLElement | null {
  const e = explanationOf(id);
  if (!e) return null;
  return h(
    "div",
    { class: `why ${e.consistent ? "" : "inconsistent"}`, "data-testid": "why", "data-rule": e.rule },
    h("p", {}, h("b", {}, `why ${e.status}: `), e.why),
    causeLine(diagOf(id)),
    h(
      "table",
      { class: "facts" },
      ...e.facts.map((f) =>
        h(
          "tr",
          { class: f.decisive ? "decisive" : "", "data-testid": "fact", "data-decisive": f.decisive ? "1" : "0" },
          h("td", {}, f.name, f.against ? h("small", {}, ` · ${f.against}`) : null),
          h("td", { class: "r" }, factValue(f.value, f.unit)),
          h("td", { class: "r" }, f.threshold === null ? "" : h("small", {}, `rule ${factValue(f.threshold, f.unit)}`)),
        ),
      ),
    ),
  );
}

function flagsOf(n: GraphNode, d: NodeDiagnosis | undefined): Array<HTMLElement | string> {
  const out: Array<HTMLElement | string> = [];
  if (d?.twin) out.push(h("span", { class: "flag dup" }, "twin ", nodeLink(d.twin, d.twin)));
  // short words that wrap in the panel's column; the graph's own flag names in the tooltip
  if (n.flags.possible_duplicate_of.length) out.push(h("span", { class: "flag", title: "possible_duplicate_of: the graph builder's evidence flag" }, "maybe dup of ", ...n.flags.possible_duplicate_of.flatMap((id, i) => [i ? ", " : "", nodeLink(id, id)])));
  if (n.flags.low_support) out.push(h("span", { class: "flag", title: "low_support: few views or points" }, "low support"));
  if (n.flags.fragment) out.push(h("span", { class: "flag", title: "fragment: part of an object cut by an occluder" }, "fragment"));
  return out.length ? out : ["–"];
}

/**
 * The node table of a graph with no diagnosis (a bundle without a task record: nothing to judge it against):
 * no status and no true object, only what the graph itself says.
 */
function undiagnosedNodesTab(v: Variant): HTMLElement {
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
            { class: k === state.selected ? "sel" : "", "data-node": n.id, onclick: () => selectNode(k) },
            h("td", {}, h("i", { class: "swatch", style: `background: ${css(nodeColor(k))}` }), n.id),
            h("td", {}, n.label),
            h("td", { class: "r" }, n.raw_point_count.toLocaleString()),
            h("td", { class: "r" }, n.views.length),
            h("td", { class: "flags" }, ...flagsOf(n, undefined)),
          ),
        ),
      ),
    ),
  );
}

/** The relations of a graph with no diagnosis: listed as built, none marked right or wrong. */
function undiagnosedRelationsTab(v: Variant): HTMLElement {
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
              const a = nodeIndex(r.subject), b = nodeIndex(r.object);
              selectNode(a, false);
              viewer.showRelation(a, b, true);
            },
          },
          nodeLink(r.subject, `${r.subject} ${label(r.subject)}`),
          h("b", {}, ` ${r.predicate.replace(/_/g, " ")} `),
          nodeLink(r.object, `${r.object} ${label(r.object)}`),
          h("small", {}, ` margin ${fix(r.margin_m)} m`),
        ),
      ),
    ),
  );
}

function relationsTab(v: Variant): HTMLElement {
  if (!v.diagnosis) return undiagnosedRelationsTab(v);
  const rels = v.diagnosis!.relations.filter((r) => !state.wrongOnly || !r.correct);
  const label = (id: string) => v.graph!.nodes.find((n) => n.id === id)?.label ?? id;
  const objName = (id: number) => meta.task.objects.find((o) => o.id === id)?.name ?? `o${id}`;
  const right = v.diagnosis!.relations.filter((r) => r.correct).length;
  const row = (r: RelationDiagnosis) =>
    h(
      "li",
      {
        class: r.correct ? "ok" : "wrong",
        "data-testid": r.correct ? "relation-right" : "relation-wrong",
        onclick: () => {
          const a = nodeIndex(r.subject), b = nodeIndex(r.object);
          selectNode(a, false);
          viewer.showRelation(a, b, r.correct);
        },
      },
      h("span", { class: "mark", title: r.correct ? "in the true graph" : "not in the true graph" }, r.correct ? "✓" : "✗"),
      nodeLink(r.subject, `${r.subject} ${label(r.subject)}`),
      h("b", {}, ` ${r.predicate.replace(/_/g, " ")} `),
      nodeLink(r.object, `${r.object} ${label(r.object)}`),
      h("small", {}, ` margin ${fix(r.margin_m)} m${r.mapped ? ` · ${objName(r.mapped[0])} / ${objName(r.mapped[1])}` : " · an end is not a true object"}`),
    );
  return h(
    "div",
    {},
    h("p", {}, `${right} of ${v.diagnosis!.relations.length} relations are in the true graph; ${v.diagnosis!.missing_relations.length} true relations are missing. Click one to draw it.`),
    h("label", {}, h("input", { type: "checkbox", checked: state.wrongOnly, onchange: (e: Event) => ((state.wrongOnly = (e.target as HTMLInputElement).checked), renderPanel()) }), " wrong only"),
    h("ul", { class: "relations", "data-testid": "relations" }, ...rels.map(row)),
    v.diagnosis!.missing_relations.length
      ? h("details", {}, h("summary", {}, `Missing true relations (${v.diagnosis!.missing_relations.length})`), h("ul", { class: "relations" }, ...v.diagnosis!.missing_relations.map((r) => h("li", { class: "missing" }, h("span", { class: "mark" }, "–"), `${objName(r.subject)} `, h("b", {}, r.predicate.replace(/_/g, " ")), ` ${objName(r.object)}`))))
      : null,
  );
}

function recordBlock(title: string, r: ItemRecord | null, testid: string): HTMLElement {
  if (!r) return h("div", { class: "record" }, h("h3", {}, title), h("p", { class: "muted" }, meta.run ? "no record for this paradigm and source in items.jsonl" : "a frame bundle's page has no answer records (inspect a run directory for them)"));
  const verdict = r.correct === null ? h("span", { class: "pill", style: "--c: #888" }, r.status) : r.correct ? h("span", { class: "pill", style: "--c: #2ecc71" }, "correct") : h("span", { class: "pill", style: "--c: #e74c3c" }, "wrong");
  return h(
    "div",
    { class: "record", "data-testid": testid },
    h("h3", {}, title, " ", verdict),
    h("dl", {}, h("dt", {}, "reasoner"), h("dd", {}, r.reasoner), h("dt", {}, "answer"), h("dd", {}, `${r.answer ?? "–"} (truth ${r.truth})`), h("dt", {}, "status"), h("dd", {}, `${r.status}${r.reprompted ? ", re-prompted" : ""}`), h("dt", {}, "confidence"), h("dd", {}, r.confidence === null ? "–" : `${fix(r.confidence * 100, 0)} %`), h("dt", {}, "method"), h("dd", {}, r.method), r.prompt_hash ? h("dt", {}, "prompt hash") : null, r.prompt_hash ? h("dd", { class: "mono" }, r.prompt_hash) : null),
    h("h4", {}, r.reasoner.startsWith("symbolic") ? "program trace" : "replies"),
    h("pre", { class: "raw", "data-testid": `${testid}-raw` }, ...r.raw.flatMap((line, i) => [i ? "\n" : "", ...linkNodes(line)])),
  );
}

function questionTab(v: Variant): HTMLElement {
  const t = meta.task;
  return h(
    "div",
    {},
    h("p", { class: "question", "data-testid": "question" }, t.question),
    t.options.length ? h("p", {}, "options: ", ...t.options.map((o) => h("span", { class: o === t.answer ? "opt truth" : "opt" }, o))) : null,
    h("p", {}, "truth: ", h("b", {}, t.answer)),
    recordBlock(`3D arm: ${v.source} graph`, v.record3d, "record3d"),
    h("details", { open: v.prompt.origin !== "hypothetical" }, h("summary", {}, `Prompt (${v.prompt.origin})`), h("p", { class: "muted" }, v.prompt.note), v.prompt.text ? h("pre", { class: "prompt", "data-testid": "prompt" }, v.prompt.text) : null),
    v.record2d ? recordBlock("2D baseline (no graph)", v.record2d, "record2d") : null,
  );
}

function evidenceTab(v: Variant): HTMLElement {
  if (state.selected === null) return h("p", { class: "muted" }, "Click a node (a box in 3D, or a row of the node table) to see its evidence.");
  const n = v.graph!.nodes[state.selected]!;
  const d = diagOf(n.id);
  const twin = d?.twin ? nodeIndex(d.twin) : null;
  const cards = [nodeCard(v, state.selected, "node")];
  if (twin !== null) cards.push(nodeCard(v, twin, "twin"));
  return h("div", { class: `evidence ${twin !== null ? "pair" : ""}` }, ...cards);
}

function nodeCard(v: Variant, k: number, role: "node" | "twin"): HTMLElement {
  const n = v.graph!.nodes[k]!;
  const d = diagOf(n.id);
  const votes = Object.entries(n.label_distribution).sort((a, b) => b[1] - a[1]).slice(0, 4).map(([l, f]) => `${l} ${pct(f)}`).join(", ");
  const shares = d ? d.shares.map((s) => `${s.name} ${pct(s.share)}`).join(", ") || "–" : "";
  const title = !d
    ? h("h3", {}, ` ${n.id} ${n.label} `, h("small", {}, " (no diagnosis: no task record)"))
    : role === "twin"
      ? h("h3", {}, h("span", { class: "role twin" }, "twin"), ` ${n.id} ${n.label} `, pill(d.status), h("small", {}, ` matched to ${d.object_name ?? "–"}`))
      : h("h3", {}, ` ${n.id} ${n.label} `, pill(d.status), d.status === "duplicate" ? h("small", {}, ` duplicate of ${d.object_name ?? "?"} (twin ${d.twin ?? "none"})`) : d.object_name ? h("small", {}, ` → ${d.object_name}`) : null);
  const support = [...n.support].sort((a, b) => b.points - a.points);
  const all = state.showAllThumbs.has(n.id);
  const shown = all ? support : support.slice(0, THUMBS_SHOWN);
  const thumbs = h("div", { class: "thumbs" }, ...shown.map((s) => thumbnail(v, k, s.view, s.bbox, s.points, role)));
  return h(
    "div",
    { class: `card ${role}`, "data-testid": role === "twin" ? "evidence-twin" : "evidence-node", "data-node": n.id },
    title,
    whyBlock(n.id),
    h(
      "dl",
      {},
      h("dt", {}, "label votes"), h("dd", {}, votes),
      ...(d
        ? [
            h("dt", {}, "true objects"), h("dd", {}, `${shares}; structure/background ${pct(d.structure_share)}`),
            h("dt", {}, "IoU / centre error"), h("dd", {}, `${fix(d.iou)} / ${d.centroid_error_m === null ? "–" : `${fix(d.centroid_error_m, 3)} m`}`),
          ]
        : []),
      h("dt", {}, "points"), h("dd", {}, `${n.raw_point_count.toLocaleString()} raw, ${n.point_count.toLocaleString()} downsampled`),
      h("dt", {}, "views"), h("dd", {}, `${n.views.length} (${n.detections} detections)`),
      h("dt", { title: CONFIDENCE_UNIT }, "point confidence"), h("dd", { title: CONFIDENCE_UNIT }, `${fix(n.mean_confidence)} mean (≥ 1, unitless; 1 = depth taken as exact)`),
      h("dt", {}, "box"), h("dd", {}, `${n.box.extent.map((x) => fix(x)).join(" × ")} m at (${n.box.centre.map((x) => fix(x)).join(", ")}), yaw ${fix((n.box.yaw * 180) / Math.PI, 0)}°`),
      h("dt", {}, "colour"), h("dd", {}, h("i", { class: "swatch", style: `background: ${css(n.color)}` }), n.color_name),
      h("dt", {}, "flags"), h("dd", {}, ...flagsOf(n, d)),
    ),
    h("h4", {}, `Seen in ${support.length} view(s); its pixels outlined${role === "twin" ? " (cyan)" : " (yellow)"}`),
    thumbs,
    support.length > THUMBS_SHOWN
      ? h(
          "button",
          {
            class: "more",
            onclick: () => {
              if (all) state.showAllThumbs.delete(n.id);
              else state.showAllThumbs.add(n.id);
              renderPanel();
            },
          },
          all ? "fewer views" : `all ${support.length} views`,
        )
      : null,
  );
}

/** The crop around a node's pixel box (thumbnail pixels): the box padded by CROP_PAD, at least CROP_MIN_PX wide, in the thumbnail's aspect. */
function cropRect(bbox: [number, number, number, number], s: number, tw: number, th: number): { x: number; y: number; w: number; h: number } {
  const bw = (bbox[2] - bbox[0] + 1) * s, bh = (bbox[3] - bbox[1] + 1) * s;
  let w = Math.max(bw * CROP_PAD, CROP_MIN_PX), h = (w * th) / tw;
  if (bh * CROP_PAD > h) (h = bh * CROP_PAD), (w = (h * tw) / th);
  if (w >= tw || h >= th) return { x: 0, y: 0, w: tw, h: th };
  const cx = ((bbox[0] + bbox[2] + 1) / 2) * s, cy = ((bbox[1] + bbox[3] + 1) / 2) * s;
  const x = Math.min(tw - w, Math.max(0, cx - w / 2)), y = Math.min(th - h, Math.max(0, cy - h / 2));
  return { x, y, w, h };
}

/**
 * A view thumbnail, zoomed on the node (click: the whole view), with the node's own pixels outlined (the
 * pixels its cloud points came from), the rest dimmed, and its pixel box dashed.
 */
function thumbnail(v: Variant, k: number, viewIndex: number, bbox: [number, number, number, number], points: number, role: "node" | "twin"): HTMLElement {
  const view = v.views[viewIndex]!;
  const tw = view.thumb_width, th = view.thumb_height;
  const canvas = h("canvas", { width: tw, height: th, "data-testid": "thumb", "data-view": viewIndex, title: "click: whole view / zoom on the node" });
  const caption = h("figcaption", {}, `view ${viewIndex} · ${points.toLocaleString()} px${view.action ? ` · after ${view.action}` : ""}`);
  const fig = h("figure", { class: "thumb" }, canvas, caption);
  const full = h("canvas", { width: tw, height: th });
  const s = tw / view.width;
  const crop = cropRect(bbox, s, tw, th);
  let zoomed = crop.w < tw;
  const draw = () => {
    const ctx = canvas.getContext("2d")!;
    ctx.imageSmoothingEnabled = false;
    ctx.clearRect(0, 0, tw, th);
    const r = zoomed ? crop : { x: 0, y: 0, w: tw, h: th };
    ctx.drawImage(full, r.x, r.y, r.w, r.h, 0, 0, tw, th);
    canvas.dataset.zoom = zoomed ? (tw / crop.w).toFixed(1) : "1";
  };
  fig.addEventListener("click", () => {
    if (crop.w >= tw) return;
    zoomed = !zoomed;
    draw();
  });
  const img = new Image();
  img.onload = async () => {
    const ctx = full.getContext("2d")!;
    ctx.drawImage(img, 0, 0);
    const labels = await viewLabels(view);
    const data = ctx.getImageData(0, 0, tw, th);
    const want = k + 1;
    const col = role === "twin" ? OUTLINE_TWIN : OUTLINE_NODE;
    const px = data.data;
    // dim pixels outside the node so its outline reads at thumbnail size
    for (let i = 0; i < tw * th; i++) {
      if (labels[i] === want) continue;
      px[4 * i] = px[4 * i]! * OUTSIDE_DIM;
      px[4 * i + 1] = px[4 * i + 1]! * OUTSIDE_DIM;
      px[4 * i + 2] = px[4 * i + 2]! * OUTSIDE_DIM;
    }
    for (let y = 0; y < th; y++)
      for (let x = 0; x < tw; x++) {
        const i = y * tw + x;
        if (labels[i] !== want) continue;
        const edge = x === 0 || y === 0 || x === tw - 1 || y === th - 1 || labels[i - 1] !== want || labels[i + 1] !== want || labels[i - tw] !== want || labels[i + tw] !== want;
        if (!edge) continue;
        px[4 * i] = col[0];
        px[4 * i + 1] = col[1];
        px[4 * i + 2] = col[2];
      }
    ctx.putImageData(data, 0, 0);
    // the node's pixel bounding box in this view (support bbox, full-resolution pixels)
    ctx.strokeStyle = css(col);
    ctx.lineWidth = 1;
    ctx.setLineDash([3, 2]);
    ctx.strokeRect(bbox[0] * s - 1.5, bbox[1] * s - 1.5, (bbox[2] - bbox[0] + 1) * s + 3, (bbox[3] - bbox[1] + 1) * s + 3);
    draw();
    canvas.dataset.drawn = "1";
  };
  img.src = view.thumb;
  return fig;
}

// ---------------------------------------------------------------------------------------------------------
// active episodes: the step control and the Episode tab

function stepRecord(v: Variant, k: number): ActiveStep {
  return v.episode!.record.active!.steps[k - 1]!;
}

const answerText = (s: ActiveStep) => (s.answer ?? (s.status === "parsed" ? "not sure" : s.status)) + (s.confidence === null ? "" : ` (${fix(s.confidence * 100, 0)} %)`) + (s.correct === null ? "" : s.correct ? " ✓" : " ✗");
const actionText = (s: ActiveStep) => (s.action ?? (s.valid ? "–" : `invalid: ${s.requested_action}`)) + (s.blocked ? " (blocked)" : "");

/** Nodes of the graph the agent decided on at step k (the stored graph's at the last step; null for the 2D arm). */
function stepNodeCount(v: Variant, k: number): number | null {
  return v.episode!.steps[k - 1]!.nodes?.length ?? null;
}

function renderStepBar(): void {
  const v = state.variant;
  if (!v?.episode || state.step === null) {
    stepBar.hidden = true;
    return;
  }
  const n = v.episode.steps.length, k = state.step, s = stepRecord(v, k), nodes = stepNodeCount(v, k);
  stepBar.hidden = false;
  stepBar.replaceChildren(
    h("button", { "data-testid": "step-prev", title: "previous step (←)", disabled: k <= 1, onclick: () => setStep(k - 1) }, "◀"),
    h("input", { type: "range", min: 1, max: n, value: k, "data-testid": "step-slider", title: "step through the episode", oninput: (e: Event) => setStep(Number((e.target as HTMLInputElement).value)) }),
    h("button", { "data-testid": "step-next", title: "next step (→)", disabled: k >= n, onclick: () => setStep(k + 1) }, "▶"),
    h(
      "span",
      { class: "steptext", "data-testid": "step-label" },
      h("b", {}, `step ${k}/${n}`),
      ` · ${v.episode.steps[k - 1]!.views} view(s) · `,
      nodes === null ? "no graph (2D arm)" : h("span", { "data-testid": "step-nodes" }, `${nodes} node(s)`),
      ` · ${answerText(s)} · then `,
      h("span", { class: s.blocked ? "blocked" : "", "data-testid": "step-action" }, actionText(s)),
    ),
  );
}

function setStep(k: number): void {
  const v = state.variant;
  if (!v?.episode) return;
  const n = v.episode.steps.length;
  k = Math.min(n, Math.max(1, Math.round(k)));
  state.step = k;
  hooks.step = k;
  const step = v.episode.steps[k - 1]!;
  viewer.setStep(k, step.views, step.nodes, k === n);
  renderStepBar();
  renderControls();
  renderStatusLine();
  if (state.tab === "episode") renderPanel();
}

function episodeTab(v: Variant): HTMLElement {
  const e = v.episode!, a = e.record.active!, k = state.step ?? e.steps.length;
  const s = stepRecord(v, k), nodes = e.steps[k - 1]!.nodes;
  const view = v.views[e.steps[k - 1]!.views - 1];
  const img = view ? h("img", { class: "stepview", src: view.thumb, width: view.thumb_width, height: view.thumb_height, alt: `view ${view.index}`, title: `the view the agent decided on (view ${view.index})` }) : null;
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
          { class: `${x.step === k ? "sel" : ""} ${x.blocked ? "blockedrow" : ""}`, onclick: () => setStep(x.step), "data-testid": "step-row" },
          h("td", { class: "r" }, String(x.step)),
          h("td", {}, actionText(x)),
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
    h("p", {}, `agent ${a.agent} · ${a.steps_used} step(s), ${v.views.length} view(s) · stopped by ${a.stop_reason}${a.forced_choice ? " (then a forced choice)" : ""} · final answer ${e.record.answer ?? "–"} (truth ${e.record.truth})`),
    h("h3", {}, `Step ${k}`, s.blocked ? h("span", { class: "pill", style: "--c: #ff4d4d" }, "blocked") : null),
    img,
    h(
      "dl",
      { "data-testid": "step-detail" },
      h("dt", {}, "pose"), h("dd", {}, `(${s.pose.position.map((x) => fix(x, 2)).join(", ")}), yaw ${fix((s.pose.yaw * 180) / Math.PI, 0)}°, pitch ${fix((s.pose.pitch * 180) / Math.PI, 0)}°`),
      h("dt", {}, "action"), h("dd", {}, actionText(s), s.requested_action !== s.action ? h("small", {}, ` requested: ${s.requested_action}`) : null, s.reprompted ? h("small", {}, " · re-prompted") : null),
      h("dt", {}, "answer"), h("dd", { "data-testid": "step-answer" }, answerText(s)),
      h("dt", {}, "confidence"), h("dd", {}, s.confidence === null ? "–" : `${fix(s.confidence * 100, 0)} %`),
      h("dt", {}, "graph"), h("dd", {}, nodes === null ? "none (the 2D arm sees the views only)" : `${nodes.length} node(s), ${nodes.filter((n) => n.flagged_duplicate).length} flagged possible duplicate${k === e.steps.length ? " — the stored graph (Nodes tab)" : " — boxes in 3D; the Nodes tab shows the final graph"}`),
      h("dt", {}, "all seen"), h("dd", {}, s.relevant_seen ? "every object the question needs has been seen" : "not yet every object the question needs"),
      h("dt", {}, "reasoning"), h("dd", { "data-testid": "step-reasoning" }, s.reasoning || "–"),
    ),
    s.trace.length ? h("details", {}, h("summary", {}, v.arm === "3d" && e.record.reasoner.startsWith("symbolic") ? "program trace" : "trace / replies"), h("pre", { class: "raw" }, s.trace.join("\n"))) : null,
    h("p", { class: "muted" }, `replayed at inspect time in ${(e.replay_ms / 1000).toFixed(1)} s (built-in simulator${v.arm === "3d" ? ", and the memory updated view by view" : ""}), checked against the record${v.arm === "3d" ? " and the stored graph" : ""}. Keys: ← → step, Home / End first and last.`),
    list,
  );
}

// ---------------------------------------------------------------------------------------------------------
// selection and switching

function selectNode(k: number | null, switchTab = true): void {
  const v = state.variant;
  if (!v || k === -1) return;
  state.selected = k;
  const twin = k !== null ? nodeIndex(diagOf(v.graph!.nodes[k]!.id)?.twin ?? null) : null;
  viewer.setSelection({ node: k, twin });
  if (switchTab) viewer.showRelation(null, null);
  if (k !== null && switchTab) state.tab = "evidence";
  if (k === null && state.tab === "evidence") state.tab = "nodes";
  renderPanel();
}

async function show(key: string, keepCamera: boolean): Promise<void> {
  const started = performance.now();
  state.key = key;
  hooks.key = key;
  hooks.ready = false;
  loading.hidden = false;
  loading.classList.remove("error");
  loading.textContent = meta.mode === "serve" ? "rebuilding the cloud and graph for this view set and source…" : "loading…";
  renderHeader();
  let v: Variant, cloud: DecodedCloud;
  try {
    ({ v, cloud } = await unpack(key));
  } catch (e) {
    fail((e as Error).message);
    return;
  }
  if (state.key !== key) return; // a later switch won
  const tData = performance.now();
  state.variant = v;
  state.cloud = cloud;
  state.selected = null;
  state.showAllThumbs.clear();
  viewer.setVariant(v, cloud, meta.task.objects, meta.task.room.size, keepCamera && hooks.timings.first_render !== undefined);
  // the side-by-side view shows another source of the same paradigm
  if (linked.key !== null && (linked.key === key || refOf(linked.key)?.paradigm !== refOf(key)?.paradigm)) void linked.show(null, "");
  else if (linked.active) linked.active.setCameraState(viewer.cameraState());
  renderReadout();
  viewer.setStatusFilter(state.filter);
  state.step = null;
  hooks.step = null;
  if (v.episode) {
    const n = v.episode.steps.length;
    setStep(meta.initial_step !== null && key === meta.initial ? Math.min(meta.initial_step, n) : n);
    state.tab = "episode";
  } else if (state.tab === "episode") state.tab = "nodes";
  renderStepBar();
  renderHeader();
  renderControls();
  renderStatusLine();
  if (state.tab === "evidence") state.tab = "nodes";
  renderPanel();
  viewer.renderNow();
  loading.hidden = true;
  const done = performance.now();
  hooks.timings = { ...hooks.timings, [`${key}.data_ms`]: tData - started, [`${key}.scene_ms`]: done - tData };
  if (hooks.timings.first_render === undefined) {
    hooks.timings.first_render = done - t0;
    hooks.timings.ready_at = done;
  }
  hooks.ready = true;
}

document.addEventListener("keydown", (e) => {
  if (e.target instanceof HTMLInputElement || e.target instanceof HTMLSelectElement || e.ctrlKey || e.metaKey || e.altKey) return;
  const k = e.key.toLowerCase();
  const mode = COLOR_MODES.find((c) => c.key === k);
  if (mode) return setColorMode(mode.mode);
  const t = viewer.getToggles();
  const flip: Record<string, keyof Toggles> = { b: "boxes", t: "truth", f: "frustums", g: "grid", l: "labels" };
  const toggle = flip[k];
  if (toggle) {
    eachViewer((w) => w.setToggles({ [toggle]: !t[toggle] }));
    return renderControls();
  }
  if (k === "escape") return selectNode(null);
  if (state.step !== null) {
    if (k === "arrowleft" || k === ",") return setStep(state.step - 1);
    if (k === "arrowright" || k === ".") return setStep(state.step + 1);
    if (k === "home") return setStep(1);
    if (k === "end") return setStep(Number.MAX_SAFE_INTEGER);
  }
  if (k === "[") return setPointSize(viewer.pointSize - 1);
  if (k === "]") return setPointSize(viewer.pointSize + 1);
  if (k === "m") return setMeasuring(!viewer.measuring);
  const preset = PRESET_KEYS[k];
  if (preset) return viewer.setPreset(preset);
});

renderControls();
renderPanel();
void show(state.key, false);
