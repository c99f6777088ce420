/**
 * RunComponents (labelling by runs) against an 8-connected flood fill started at each unvisited pixel in raster
 * order, the labelling evidence.ts used before: the same components, numbered alike, with the same areas,
 * boxes, first pixels and painted maps, on random label images of every density and on shapes that only a
 * diagonal or a wrap across rows would join or split.
 */
import { describe, expect, it } from "vitest";
import { Rng } from "../../../core/math/rng.js";
import { RunComponents } from "../../../scenegraph/primitives/runComponents.js";

interface Component {
  area: number;
  box: [number, number, number, number];
  first: number;
}

/** The flood fill: components in raster order of their first pixel, and each pixel's component (-1: none). */
function floodFill(ids: Uint16Array, keyOfId: Int32Array, W: number, H: number): { comps: Component[]; of: Int32Array } {
  const of = new Int32Array(W * H).fill(-1);
  const comps: Component[] = [];
  for (let start = 0; start < W * H; start++) {
    const k = keyOfId[ids[start]!]!;
    if (k < 0 || of[start] !== -1) continue;
    const c = comps.length,
      queue = [start];
    of[start] = c;
    const comp: Component = { area: 0, box: [W, H, -1, -1], first: start };
    for (let head = 0; head < queue.length; head++) {
      const p = queue[head]!,
        x = p % W,
        y = Math.floor(p / W);
      comp.area++;
      comp.box = [Math.min(comp.box[0], x), Math.min(comp.box[1], y), Math.max(comp.box[2], x), Math.max(comp.box[3], y)];
      for (let dy = -1; dy <= 1; dy++)
        for (let dx = -1; dx <= 1; dx++) {
          const xx = x + dx,
            yy = y + dy,
            q = yy * W + xx;
          if (xx < 0 || yy < 0 || xx >= W || yy >= H || of[q] !== -1 || keyOfId[ids[q]!] !== k) continue;
          of[q] = c;
          queue.push(q);
        }
    }
    comps.push(comp);
  }
  return { comps, of };
}

function byRuns(ids: Uint16Array, keyOfId: Int32Array, W: number, H: number, rc = new RunComponents(W, H)): { comps: Component[]; of: Int32Array } {
  rc.label(ids, keyOfId);
  const comps: Component[] = [];
  for (let c = 0; c < rc.count; c++) comps.push({ area: rc.area[c]!, box: [rc.x0[c]!, rc.y0[c]!, rc.x1[c]!, rc.y1[c]!], first: rc.firstPixel[c]! });
  const of = new Int32Array(W * H).fill(-1);
  rc.paint(
    of,
    Int32Array.from({ length: rc.count }, (_, c) => c),
  );
  return { comps, of };
}

/** Keys as the instance mode's: id 0 and the "structure" ids 1-2 are background, every other id is its own key. */
function instanceKeys(): Int32Array {
  const k = Int32Array.from({ length: 65536 }, (_, id) => id);
  k[0] = k[1] = k[2] = -1;
  return k;
}

/** Blobs of `levels` ids with background between, drawn as random rectangles over a background field. */
function randomImage(rng: Rng, W: number, H: number, levels: number, rects: number): Uint16Array {
  const ids = new Uint16Array(W * H);
  for (let p = 0; p < ids.length; p++) ids[p] = rng.next() < 0.15 ? rng.int(0, levels) : 0;
  for (let r = 0; r < rects; r++) {
    const x0 = rng.int(0, W - 1),
      y0 = rng.int(0, H - 1),
      w = rng.int(1, Math.max(1, W / 3)),
      h = rng.int(1, Math.max(1, H / 3)),
      id = rng.int(0, levels);
    for (let y = y0; y < Math.min(H, y0 + h); y++) for (let x = x0; x < Math.min(W, x0 + w); x++) ids[y * W + x] = id;
  }
  return ids;
}

describe("RunComponents", () => {
  it("finds the flood fill's components, numbered alike, on random images of every density", () => {
    const rng = new Rng("run-components");
    const keys = instanceKeys();
    let images = 0,
      components = 0;
    for (const [W, H] of [
      [1, 1],
      [1, 17],
      [23, 1],
      [2, 2],
      [31, 19],
      [64, 48],
      [97, 61],
    ] as const) {
      const rc = new RunComponents(W, H);
      for (let t = 0; t < 12; t++) {
        const ids = randomImage(rng, W, H, 1 + (t % 6), t % 4 === 0 ? 0 : rng.int(1, 30));
        const want = floodFill(ids, keys, W, H);
        // one RunComponents reused across images, as an EvidenceBuilder reuses it across views
        const got = byRuns(ids, keys, W, H, rc);
        expect(got.comps).toEqual(want.comps);
        expect(got.of).toEqual(want.of);
        images++;
        components += want.comps.length;
      }
    }
    expect(images).toBe(84);
    expect(components).toBeGreaterThan(1000);
  });

  it("joins diagonal neighbours, keeps touching runs of different keys apart, and joins a U from below", () => {
    const keys = instanceKeys();
    const W = 6,
      H = 4;
    // row 0: a 3 at x=0 and a 3 at x=5; row 1: 3 at x=1 (diagonal to x=0), 4 at x=2..3 touching 3's run,
    // row 2..3: a U of 5s whose arms meet only in the last row
    const ids = Uint16Array.from([3, 0, 0, 0, 0, 3, 0, 3, 4, 4, 0, 0, 5, 0, 0, 0, 0, 5, 5, 5, 5, 5, 5, 5]);
    const got = byRuns(ids, keys, W, H);
    expect(got.comps).toEqual(floodFill(ids, keys, W, H).comps);
    expect(got.comps.map((c) => c.area)).toEqual([2, 1, 2, 8]);
    expect(got.comps[3]!.box).toEqual([0, 2, 5, 3]);
  });

  it("grows past its first room for runs mid-image and keeps the runs found before", () => {
    // a pixel-wide run at every pixel (ids alternate along rows and between rows): 20 467 runs, over twice
    // the first room, joined diagonally into two components
    const keys = instanceKeys();
    const W = 211,
      H = 97;
    const ids = Uint16Array.from({ length: W * H }, (_, p) => 3 + (((p % W) + Math.floor(p / W)) % 2));
    const rc = new RunComponents(W, H);
    const got = byRuns(ids, keys, W, H, rc);
    expect(got.comps).toEqual(floodFill(ids, keys, W, H).comps);
    expect(got.comps.map((c) => c.area)).toEqual([Math.ceil((W * H) / 2), Math.floor((W * H) / 2)]);
    // and again with the grown arrays
    expect(byRuns(ids, keys, W, H, rc)).toEqual(got);
  });

  it("paints only components whose value is not negative", () => {
    const keys = instanceKeys();
    const ids = Uint16Array.from([3, 3, 0, 4, 4, 4]);
    const rc = new RunComponents(6, 1);
    rc.label(ids, keys);
    const map = new Int32Array(6).fill(-1);
    rc.paint(map, Int32Array.from([-1, 7]));
    expect([...map]).toEqual([-1, -1, -1, 7, 7, 7]);
  });
});
