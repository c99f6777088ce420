/**
 * Contact sheets: a bundle's views tiled into one PNG so a person can look at them. Each cell holds a
 * view's RGB, its depth (near = bright yellow, far = dark blue, no measurement = black) and its instance
 * ids (one colour per id, none = black), stacked top to bottom; cells run left to right, row by row.
 */
import type { ViewData } from "../../../core/bundle/io.js";
import { encodePng } from "../../../core/bundle/png.js";

export interface ContactSheetOptions {
  /** Cells per row. */
  columns?: number;
  /** Downscale factor of every tile (nearest neighbour). */
  scale?: number;
  /** Gap between tiles (px). */
  gap?: number;
}

/** Maps t in [0,1] to a dark-blue -> cyan -> yellow ramp. */
function depthColor(t: number): [number, number, number] {
  const x = Math.min(1, Math.max(0, t));
  const stops: Array<[number, number, number]> = [
    [20, 20, 90],
    [30, 140, 200],
    [120, 210, 120],
    [250, 240, 80],
  ];
  const f = x * (stops.length - 1);
  const i = Math.min(stops.length - 2, Math.floor(f));
  const u = f - i;
  const a = stops[i]!,
    b = stops[i + 1]!;
  return [a[0] + (b[0] - a[0]) * u, a[1] + (b[1] - a[1]) * u, a[2] + (b[2] - a[2]) * u].map(Math.round) as [number, number, number];
}

/** A stable, well-spread colour per instance id (golden-ratio hue steps). */
function idColor(id: number): [number, number, number] {
  if (id === 0) return [0, 0, 0];
  const h = (id * 0.61803398875) % 1;
  const s = 0.65,
    v = id < 16 ? 0.55 : 0.95;
  const k = (n: number) => (n + h * 6) % 6;
  const f = (n: number) => v - v * s * Math.max(0, Math.min(k(n), 4 - k(n), 1));
  return [Math.round(f(5) * 255), Math.round(f(3) * 255), Math.round(f(1) * 255)];
}

export function contactSheet(views: readonly ViewData[], opts: ContactSheetOptions = {}): Buffer {
  if (views.length === 0) throw new Error("contactSheet: no views");
  const scale = opts.scale ?? 2;
  const gap = opts.gap ?? 4;
  const cols = Math.min(opts.columns ?? 5, views.length);
  const W = views[0]!.width,
    H = views[0]!.height;
  const tw = Math.floor(W / scale),
    th = Math.floor(H / scale);
  const cellW = tw + gap,
    cellH = 3 * th + 2 * gap + gap * 3;
  const rows = Math.ceil(views.length / cols);
  const SW = cols * cellW + gap,
    SH = rows * cellH + gap;
  const out = new Uint8Array(SW * SH * 3).fill(255);
  let maxDepth = 0;
  for (const v of views) for (const d of v.depth) if (d > maxDepth && Number.isFinite(d)) maxDepth = d;
  views.forEach((v, k) => {
    const ox = gap + (k % cols) * cellW,
      oy0 = gap + Math.floor(k / cols) * cellH;
    for (let layer = 0; layer < 3; layer++) {
      const oy = oy0 + layer * (th + gap);
      for (let y = 0; y < th; y++) {
        for (let x = 0; x < tw; x++) {
          const p = y * scale * W + x * scale;
          let c: [number, number, number];
          if (layer === 0) c = [v.rgb[p * 3]!, v.rgb[p * 3 + 1]!, v.rgb[p * 3 + 2]!];
          else if (layer === 1) {
            const d = v.depth[p]!;
            c = d > 0 && Number.isFinite(d) ? depthColor(1 - d / (maxDepth || 1)) : [0, 0, 0];
          } else c = idColor(v.ids[p]!);
          const o = ((oy + y) * SW + ox + x) * 3;
          out[o] = c[0];
          out[o + 1] = c[1];
          out[o + 2] = c[2];
        }
      }
    }
  });
  return encodePng(SW, SH, 3, 8, out);
}
