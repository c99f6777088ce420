/** The Evidence tab: the selected node (and its twin) with why it has its status and the views it was seen in. */
import type { NodeDiagnosis } from "../../../../scenegraph/diagnosisSchema.js";
import type { StatusFact, Variant } from "../types.js";
import { viewLabels } from "./data.mjs";
import { css, fix, h, pct } from "./dom.mjs";
import { CONFIDENCE_UNIT, diagOf, explanationOf, flagsOf, linkNodes, nodeIndex, pill, type Page } from "./page.mjs";

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

export function evidenceTab(page: Page, v: Variant): HTMLElement {
  if (page.state.selected === null) return h("p", { class: "muted" }, "Click a node (a box in 3D, or a row of the node table) to see its evidence.");
  const n = v.graph!.nodes[page.state.selected]!;
  const d = diagOf(page.state, n.id);
  const twin = d?.twin ? nodeIndex(page.state, d.twin) : null;
  const cards = [nodeCard(page, v, page.state.selected, "node")];
  if (twin !== null) cards.push(nodeCard(page, v, twin, "twin"));
  return h("div", { class: `evidence ${twin !== null ? "pair" : ""}` }, ...cards);
}

function nodeCard(page: Page, v: Variant, k: number, role: "node" | "twin"): HTMLElement {
  const n = v.graph!.nodes[k]!;
  const d = diagOf(page.state, n.id);
  const votes = Object.entries(n.label_distribution)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 4)
    .map(([l, f]) => `${l} ${pct(f)}`)
    .join(", ");
  const shares = d ? d.shares.map((s) => `${s.name} ${pct(s.share)}`).join(", ") || "–" : "";
  const title = !d
    ? h("h3", {}, ` ${n.id} ${n.label} `, h("small", {}, " (no diagnosis: no task record)"))
    : role === "twin"
      ? h("h3", {}, h("span", { class: "role twin" }, "twin"), ` ${n.id} ${n.label} `, pill(d.status), h("small", {}, ` matched to ${d.object_name ?? "–"}`))
      : h(
          "h3",
          {},
          ` ${n.id} ${n.label} `,
          pill(d.status),
          d.status === "duplicate"
            ? h("small", {}, ` duplicate of ${d.object_name ?? "?"} (twin ${d.twin ?? "none"})`)
            : d.status === "stale"
              ? h("small", {}, ` left where ${d.object_name ?? "?"} was before it was moved`)
              : d.status === "mirror_ghost"
                ? h("small", {}, ` the reflection of ${v.diagnosis?.objects.find((o) => o.id === d.mirrors_object)?.name ?? "?"} in a mirror`)
                : d.object_name
                  ? h("small", {}, ` → ${d.object_name}`)
                  : null,
        );
  const support = [...n.support].sort((a, b) => b.points - a.points);
  const all = page.state.showAllThumbs.has(n.id);
  const shown = all ? support : support.slice(0, THUMBS_SHOWN);
  const thumbs = h("div", { class: "thumbs" }, ...shown.map((s) => thumbnail(v, k, s.view, s.bbox, s.points, role)));
  return h(
    "div",
    { class: `card ${role}`, "data-testid": role === "twin" ? "evidence-twin" : "evidence-node", "data-node": n.id },
    title,
    whyBlock(page, n.id),
    h(
      "dl",
      {},
      h("dt", {}, "label votes"),
      h("dd", {}, votes),
      ...(d
        ? [
            h("dt", {}, "true objects"),
            h("dd", {}, `${shares}; structure/background ${pct(d.structure_share)}`),
            h("dt", {}, "IoU / centre error"),
            h("dd", {}, `${fix(d.iou)} / ${d.centroid_error_m === null ? "–" : `${fix(d.centroid_error_m, 3)} m`}`),
          ]
        : []),
      h("dt", {}, "points"),
      h("dd", {}, `${n.raw_point_count.toLocaleString()} raw, ${n.point_count.toLocaleString()} downsampled`),
      h("dt", {}, "views"),
      h("dd", {}, `${n.views.length} (${n.detections} detections)`),
      h("dt", { title: CONFIDENCE_UNIT }, "point confidence"),
      h("dd", { title: CONFIDENCE_UNIT }, `${fix(n.mean_confidence)} mean (≥ 1, unitless; 1 = depth taken as exact)`),
      h("dt", {}, "box"),
      h(
        "dd",
        {},
        `${n.box.extent.map((x) => fix(x)).join(" × ")} m at (${n.box.centre.map((x) => fix(x)).join(", ")}), yaw ${fix((n.box.yaw * 180) / Math.PI, 0)}°`,
      ),
      h("dt", {}, "colour"),
      h("dd", {}, h("i", { class: "swatch", style: `background: ${css(n.color)}` }), n.color_name),
      h("dt", {}, "flags"),
      h("dd", {}, ...flagsOf(page, n, d)),
    ),
    h("h4", {}, `Seen in ${support.length} view(s); its pixels outlined${role === "twin" ? " (cyan)" : " (yellow)"}`),
    thumbs,
    support.length > THUMBS_SHOWN
      ? h(
          "button",
          {
            class: "more",
            onclick: () => {
              if (all) page.state.showAllThumbs.delete(n.id);
              else page.state.showAllThumbs.add(n.id);
              page.renderPanel();
            },
          },
          all ? "fewer views" : `all ${support.length} views`,
        )
      : null,
  );
}

/** The crop around a node's pixel box (thumbnail pixels): the box padded by CROP_PAD, at least CROP_MIN_PX wide, in the thumbnail's aspect. */
function cropRect(bbox: [number, number, number, number], s: number, tw: number, th: number): { x: number; y: number; w: number; h: number } {
  const bw = (bbox[2] - bbox[0] + 1) * s,
    bh = (bbox[3] - bbox[1] + 1) * s;
  let w = Math.max(bw * CROP_PAD, CROP_MIN_PX),
    h = (w * th) / tw;
  if (bh * CROP_PAD > h) (h = bh * CROP_PAD), (w = (h * tw) / th);
  if (w >= tw || h >= th) return { x: 0, y: 0, w: tw, h: th };
  const cx = ((bbox[0] + bbox[2] + 1) / 2) * s,
    cy = ((bbox[1] + bbox[3] + 1) / 2) * s;
  const x = Math.min(tw - w, Math.max(0, cx - w / 2)),
    y = Math.min(th - h, Math.max(0, cy - h / 2));
  return { x, y, w, h };
}

/**
 * A view thumbnail, zoomed on the node (click: the whole view), with the node's own pixels outlined (the
 * pixels its cloud points came from), the rest dimmed, and its pixel box dashed.
 */
function thumbnail(v: Variant, k: number, viewIndex: number, bbox: [number, number, number, number], points: number, role: "node" | "twin"): HTMLElement {
  const view = v.views[viewIndex]!;
  const tw = view.thumb_width,
    th = view.thumb_height;
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
        const edge =
          x === 0 ||
          y === 0 ||
          x === tw - 1 ||
          y === th - 1 ||
          labels[i - 1] !== want ||
          labels[i + 1] !== want ||
          labels[i - tw] !== want ||
          labels[i + tw] !== want;
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

const factValue = (x: number, unit: StatusFact["unit"]) => (unit === "share" ? `${(x * 100).toFixed(1)} %` : unit === "m" ? `${x.toFixed(3)} m` : x.toFixed(3));

/**
 * What made a duplicate or hallucination, as the diagnosis recorded it when the graph was built (the views its
 * points came from, the noise component at work); the rule that gave the status is the block's first line.
 */
function causeLine(page: Page, d: NodeDiagnosis | undefined): HTMLElement | null {
  if (!d?.cause) return null;
  return h("p", { "data-testid": "cause", "data-component": d.cause.component ?? "" }, h("b", {}, "cause: "), ...linkNodes(page, d.cause.text));
}

/** Why the node has its status: the rule's sentence, and the facts it was judged on beside their thresholds (the decisive one marked). */
function whyBlock(page: Page, id: string): HTMLElement | null {
  const e = explanationOf(page.state, id);
  if (!e) return null;
  return h(
    "div",
    { class: `why ${e.consistent ? "" : "inconsistent"}`, "data-testid": "why", "data-rule": e.rule },
    h("p", {}, h("b", {}, `why ${e.status}: `), e.why),
    causeLine(page, diagOf(page.state, id)),
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
