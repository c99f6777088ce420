/**
 * Labels that do not overlap: a greedy screen-space layout. Labels are placed in priority order (the
 * selection first, then wrong nodes and missed objects, then matched nodes, grid figures last); each takes
 * the first of a few candidate spots (above its anchor, one line higher, below it) whose box meets no box
 * placed before it, and is hidden when every spot is taken. A person zooming in gets the hidden ones back.
 */

export interface LabelBox {
  /** Anchor on screen (CSS px): the label sits centred above it. */
  x: number;
  y: number;
  /** Label size (CSS px). */
  w: number;
  h: number;
  /** Lower is placed first. */
  priority: number;
}

export type LabelPlacement = { state: "shown" | "moved"; left: number; top: number } | { state: "hidden" };

/** Gap kept between two labels (px), so neighbours stay readable. */
const LABEL_GAP_PX = 2;
/** Candidate spots, as the label's top relative to its anchor in label heights: above (the default), one line higher, below (0.2 h apart, more than LABEL_GAP_PX for any readable label). */
const CANDIDATE_TOPS = [-1.2, -2.4, 0.2];

interface Rect {
  l: number;
  t: number;
  r: number;
  b: number;
}

const meets = (a: Rect, b: Rect) => a.l < b.r + LABEL_GAP_PX && b.l < a.r + LABEL_GAP_PX && a.t < b.b + LABEL_GAP_PX && b.t < a.b + LABEL_GAP_PX;

/** Places every label (same order as `boxes`); ties in priority keep the input order. */
export function layoutLabels(boxes: readonly LabelBox[]): LabelPlacement[] {
  const order = boxes.map((_, i) => i).sort((a, b) => boxes[a]!.priority - boxes[b]!.priority || a - b);
  const placed: Rect[] = [];
  const out: LabelPlacement[] = new Array(boxes.length);
  for (const i of order) {
    const b = boxes[i]!;
    const left = b.x - b.w / 2;
    out[i] = { state: "hidden" };
    for (let c = 0; c < CANDIDATE_TOPS.length; c++) {
      const top = b.y + CANDIDATE_TOPS[c]! * b.h;
      const r = { l: left, t: top, r: left + b.w, b: top + b.h };
      if (placed.some((p) => meets(p, r))) continue;
      placed.push(r);
      out[i] = { state: c === 0 ? "shown" : "moved", left, top };
      break;
    }
  }
  return out;
}
