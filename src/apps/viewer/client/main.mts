/**
 * The inspection page: a three.js view of one scene graph over its point cloud, and a side panel with the
 * node table, relations, the question with its prompt and answer, and the evidence of the selected node.
 * Data: src/apps/viewer/types.ts (embedded in the page, or fetched from `esi3d inspect --serve`). This module
 * builds the layout, the header, the 3D controls and the selection; each panel tab is a module of its own.
 */
import styleText from "./style.css";
import type { Variant, VariantRef } from "../types.js";
import { MISSED_COLOR, statusColor } from "../palette.js";
import { decodeCloud, loadVariant, readMeta, type DecodedCloud } from "./data.mjs";
import { css, fix, h, pct } from "./dom.mjs";
import { COLOR_MODES, MAX_POINT_PX, MIN_POINT_PX, STEP_BOX_COLOR, STEP_FLAGGED_COLOR, Viewer, viewColor, type ColorMode, type Toggles } from "./view3d.mjs";
import type { PickedPoint } from "./measure.mjs";
import type { CameraPreset } from "./cameraPresets.mjs";
import { LinkedView } from "./compare.mjs";
import type { Hooks } from "./hooks.mjs";
import { CONFIDENCE_UNIT, diagOf, nodeIndex, type Page, type State, type Tab } from "./page.mjs";
import { STATUS_MEANINGS, STATUSES } from "./statuses.mjs";
import { nodesTab } from "./nodesTab.mjs";
import { relationsTab } from "./relationsTab.mjs";
import { questionTab } from "./questionTab.mjs";
import { evidenceTab } from "./evidenceTab.mjs";
import { episodeTab, renderStepBar as drawStepBar } from "./episodeTab.mjs";

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
  boxesShown: () => viewer.boxesShown(),
  camera: () => viewer.cameraState(),
  compareCamera: () => linked.active?.cameraState() ?? null,
  compare: () => ({ key: linked.key, ready: linked.ready }),
  pointSize: () => viewer.drawnPointSize(),
  picks: () => viewer.picks(),
  cloudPoint: (i) =>
    state.cloud && i >= 0 && i < state.cloud.count
      ? {
          position: [state.cloud.position[3 * i]!, state.cloud.position[3 * i + 1]!, state.cloud.position[3 * i + 2]!],
          node: state.cloud.node[i]! > 0 ? state.cloud.node[i]! - 1 : null,
        }
      : null,
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
viewport.append(
  labelLayer,
  h("div", { class: "topbar" }, controlsBar, h("div", { class: "topright" }, toolsBar, readout)),
  legend,
  stepBar,
  status,
  tooltip,
  loading,
);
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
/** What the panel's tabs see of the page. */
const page: Page = { state, meta, viewer, eachViewer, selectNode, renderPanel, setStep };
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
  const n = v.graph!.nodes[k]!,
    d = diagOf(state, n.id);
  const r = viewport.getBoundingClientRect();
  tooltip.replaceChildren(
    h("b", {}, `${n.id} ${n.label}`),
    ` ${d?.status ?? ""}`,
    d?.object_name ? ` · ${d.object_name}` : "",
    d?.twin ? ` · twin ${d.twin}` : "",
    h("br"),
    `${n.raw_point_count.toLocaleString()} points, ${n.views.length} view(s) — click for evidence`,
  );
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

function refOf(key: string): VariantRef | undefined {
  return meta.variants.find((r) => r.key === key);
}

// ---------------------------------------------------------------------------------------------------------
// header: task, paradigm and source switchers, the numbers

function variantLabel(r: VariantRef): string {
  const answer = r.correct === null ? "" : r.correct ? " · answer ✓" : " · answer ✗";
  if (r.arm === "2d") return `2D arm (no graph) · ${r.steps ?? 0} steps${answer}`;
  return `${r.source} · F1 ${fix(r.f1_observed)} · ${r.duplicates} dup · ${r.hallucinated} hal${r.merged ? ` · ${r.merged} merged` : ""}${r.stale ? ` · ${r.stale} stale` : ""}${answer}`;
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
        {
          "data-testid": "compare-select",
          title: "show another source beside this one, cameras linked",
          onchange: (e: Event) => void setCompare((e.target as HTMLSelectElement).value || null),
        },
        h("option", { value: "" }, "side by side: off"),
        ...others.map((r) => h("option", { value: r.key, selected: r.key === linked.key }, `beside: ${variantLabel(r)}`)),
      )
    : null;
  const m = v?.diagnosis?.metrics;
  const rec = v?.record3d;
  const num = (label: string, value: string | number, testid: string, cls = "") =>
    h("span", { class: `num ${cls}`, "data-testid": testid }, h("small", {}, label), h("b", {}, String(value)));
  const metrics = m
    ? h(
        "div",
        { class: "metrics", "data-testid": "metrics" },
        num("node F1", fix(m.f1_observed), "metric-f1", m.f1_observed < 0.999 ? "bad" : "good"),
        num("nodes", m.nodes, "metric-nodes"),
        num("duplicates", m.duplicates, "metric-duplicates", m.duplicates ? "dup" : ""),
        num("hallucinated", m.hallucinated, "metric-hallucinated", m.hallucinated ? "hal" : ""),
        num("merged", m.merged, "metric-merged", m.merged ? "mer" : ""),
        // a diagnosis written before objects could move has no stale count: "–", not a 0 it never counted
        num("stale", m.stale ?? "–", "metric-stale", m.stale ? "sta" : ""),
        // only where the scene has a mirror (the diagnosis counts ghosts there alone)
        m.mirror_ghosts === undefined ? null : num("mirror ghosts", m.mirror_ghosts, "metric-mirror-ghosts"),
        num("missed", m.missed_lost + m.missed_unseen, "metric-missed", m.missed_lost + m.missed_unseen ? "mis" : ""),
        num("relations P/R", `${pct(m.relation_precision)}/${pct(m.relation_recall)}`, "metric-relations"),
        rec
          ? num("answer", rec.correct === null ? rec.status : `${rec.answer ?? "–"} ${rec.correct ? "✓" : "✗"}`, "metric-answer", rec.correct ? "good" : "bad")
          : null,
      )
    : v?.record2d && v.arm === "2d"
      ? h(
          "div",
          { class: "metrics", "data-testid": "metrics" },
          num(
            "answer",
            v.record2d.correct === null ? v.record2d.status : `${v.record2d.answer ?? "–"} ${v.record2d.correct ? "✓" : "✗"}`,
            "metric-answer",
            v.record2d.correct ? "good" : "bad",
          ),
        )
      : h("div", { class: "metrics" });
  const downloads = h(
    "div",
    { class: "downloads" },
    v?.graph ? h("button", { title: "the stored graph and diagnosis (JSON)", onclick: () => downloadGraph() }, "graph.json") : null,
    meta.api && v?.graph
      ? h("a", { class: "button", href: `${meta.api}export/${state.key}.ply`, title: "full cloud, node colours (binary PLY)" }, "PLY")
      : null,
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
    h(
      "label",
      { title: `toggle (${key.toUpperCase()})` },
      h("input", {
        type: "checkbox",
        checked: t[k],
        "data-testid": `toggle-${k}`,
        onchange: (e: Event) => (eachViewer((w) => w.setToggles({ [k]: (e.target as HTMLInputElement).checked })), renderControls()),
      }),
      ` ${label}`,
    );
  controlsBar.replaceChildren(
    h(
      "div",
      { class: "modes" },
      h("small", {}, "colour "),
      ...COLOR_MODES.map((c) =>
        h(
          "button",
          {
            class: c.mode === mode ? "on" : "",
            title: `colour by ${c.label} (${c.key.toUpperCase()})`,
            "data-testid": `color-${c.mode}`,
            onclick: () => setColorMode(c.mode),
          },
          c.label,
        ),
      ),
    ),
    h(
      "div",
      { class: "toggles" },
      toggle("boxes", "boxes", "b"),
      toggle("truth", "true boxes", "t"),
      toggle("frustums", "cameras", "f"),
      toggle("grid", "grid", "g"),
      toggle("labels", "labels", "l"),
    ),
  );
  toolsBar.replaceChildren(
    h(
      "div",
      { class: "modes" },
      h("small", {}, "camera "),
      ...PRESETS.map((p) => h("button", { title: p.title, "data-testid": `preset-${p.preset}`, onclick: () => viewer.setPreset(p.preset) }, p.label)),
      h("small", {}, " point "),
      h("input", {
        type: "range",
        min: MIN_POINT_PX,
        max: MAX_POINT_PX,
        step: 1,
        value: viewer.pointSize,
        "data-testid": "point-size",
        title: "point size in pixels ([ ])",
        oninput: (e: Event) => setPointSize(Number((e.target as HTMLInputElement).value)),
      }),
      h("small", { "data-testid": "point-size-label" }, `${viewer.pointSize} px`),
    ),
    h(
      "div",
      { class: "modes" },
      state.variant?.arm === "2d"
        ? null
        : h(
            "button",
            {
              class: viewer.measuring ? "on" : "",
              "data-testid": "ruler-toggle",
              title: "ruler: click two points to measure the distance (M)",
              onclick: () => setMeasuring(!viewer.measuring),
            },
            "ruler",
          ),
      h(
        "button",
        { "data-testid": "screenshot", title: "download the 3D view as PNG (both views when comparing)", onclick: () => downloadScreenshot() },
        "PNG",
      ),
    ),
  );
  const v = state.variant;
  const intermediate = state.step !== null && v?.episode && state.step < v.episode.steps.length;
  const items: HTMLElement[] =
    v?.arm === "2d"
      ? []
      : intermediate
        ? [
            h("span", {}, h("i", { style: `background: ${css(STEP_BOX_COLOR)}` }), `node of step ${state.step}'s graph`),
            h("span", {}, h("i", { style: `background: ${css(STEP_FLAGGED_COLOR)}` }), "flagged possible duplicate"),
          ]
        : STATUSES.map((s) =>
            h("span", { title: STATUS_MEANINGS[s], "data-testid": `legend-${s}` }, h("i", { style: `background: ${css(statusColor(s))}` }), s),
          );
  if (v?.episode)
    items.push(
      h("span", {}, h("i", { style: "background: #f2f2f2" }), "camera path"),
      h("span", {}, h("i", { style: "background: #ffe14d" }), "this step"),
      h("span", {}, h("i", { style: "background: #ff4d4d" }), "blocked move"),
    );
  items.push(h("span", {}, h("i", { class: "dashed" }), "true box"));
  if (v?.arm !== "2d") items.push(h("span", {}, h("i", { style: `background: ${css(MISSED_COLOR)}` }), "missed object"));
  if (mode === "confidence" && v)
    items.push(
      h(
        "span",
        { class: "ramp", title: CONFIDENCE_UNIT },
        `point confidence ${fix(v.cloud.conf_min)} `,
        h("i", { class: "viridis" }),
        ` ${fix(v.cloud.conf_max)} (≥ 1, unitless)`,
      ),
    );
  if (mode === "view" && v)
    items.push(
      h(
        "span",
        {},
        h("i", {
          style: `background: linear-gradient(90deg, ${[0, 0.25, 0.5, 0.75, 1].map((f) => css(viewColor(Math.round(f * (v.views.length - 1)), v.views.length))).join(",")})`,
        }),
        `views 0–${v.views.length - 1} (frustums match)`,
      ),
    );
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

const xyz = (p: readonly number[]) => `(${p.map((x) => x.toFixed(3)).join(", ")}) m`;

/** What a picked point is: its world coordinates and its node (id, label, status), or none. */
function pointText(p: PickedPoint): string {
  const n = p.node !== null ? state.variant?.graph?.nodes[p.node] : undefined;
  return `${xyz(p.position)} · ${n ? `${n.id} ${n.label} (${diagOf(state, n.id)?.status ?? "no diagnosis"})` : "in no node"}`;
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
  const points =
    v.arm === "2d"
      ? "the 2D arm builds no cloud"
      : shown && shown.points < d.shown
        ? `showing ${shown.points.toLocaleString()} points of the views so far (${d.shown.toLocaleString()} in all, of ${d.total.toLocaleString()})${thin}`
        : `showing ${d.shown.toLocaleString()} of ${d.total.toLocaleString()} points${thin}`;
  status.title =
    status.textContent = `${v.paradigm} views (${v.views.length}) · source ${v.source} · ${points} · drag to orbit, right-drag to pan, wheel to zoom${v.graph ? ", click a box" : ""}${v.episode ? " · ← → step through the episode" : ""}`;
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
  const body =
    state.tab === "episode"
      ? episodeTab(page, v)
      : state.tab === "nodes"
        ? nodesTab(page, v)
        : state.tab === "relations"
          ? relationsTab(page, v)
          : state.tab === "question"
            ? questionTab(page, v)
            : evidenceTab(page, v);
  content.replaceChildren(body);
}

// ---------------------------------------------------------------------------------------------------------
// active episodes: the step control and the Episode tab

function renderStepBar(): void {
  drawStepBar(page, stepBar);
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

// ---------------------------------------------------------------------------------------------------------
// selection and switching

function selectNode(k: number | null, switchTab = true): void {
  const v = state.variant;
  if (!v || k === -1) return;
  state.selected = k;
  const twin = k !== null ? nodeIndex(state, diagOf(state, v.graph!.nodes[k]!.id)?.twin ?? null) : null;
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
