import { describe, expect, it } from "vitest";
import { apparentIds } from "../../../core/bundle/apparentIds.js";
import { renderBundle } from "../../../bridge/sim/capture.js";
import { BOX_ID, MIRROR_ID, mirrorTask } from "../../helpers/mirrorScene.js";

const FLOOR = 1,
  WALL = 2,
  MIRROR = 7,
  BOX = 9,
  CUP = 11;
const structure = new Set([FLOOR, WALL]);

describe("apparent ids: what a segmenter sees", () => {
  it("a mirror pixel that reflects an object shows that object; one that reflects structure or nothing stays the mirror's", () => {
    const ids = Uint16Array.of(FLOOR, MIRROR, MIRROR, MIRROR, MIRROR, CUP);
    const reflectedIds = Uint16Array.of(0, BOX, WALL, 0, CUP, 0);
    const out = apparentIds({ ids, reflectedIds }, structure);
    expect([...out]).toEqual([FLOOR, BOX, MIRROR, MIRROR, CUP, CUP]);
    // the instance image itself is the truth, left as it was
    expect([...ids]).toEqual([FLOOR, MIRROR, MIRROR, MIRROR, MIRROR, CUP]);
  });

  it("a view without reflection images, or whose reflections show no object, returns its own ids array", () => {
    const ids = Uint16Array.of(FLOOR, MIRROR, WALL);
    expect(apparentIds({ ids }, structure)).toBe(ids);
    expect(apparentIds({ ids, reflectedIds: Uint16Array.of(0, WALL, 0) }, structure)).toBe(ids);
  });

  it("is made once per view (ids, reflection image and structure ids), anew when any differs", () => {
    const ids = Uint16Array.of(MIRROR, MIRROR),
      reflectedIds = Uint16Array.of(BOX, WALL);
    const first = apparentIds({ ids, reflectedIds }, structure);
    expect(apparentIds({ ids, reflectedIds }, new Set([WALL, FLOOR]))).toBe(first);
    const other = apparentIds({ ids, reflectedIds: Uint16Array.of(CUP, WALL) }, structure);
    expect([...other]).toEqual([CUP, MIRROR]);
    // told the wall is no structure, its reflection is an object's
    expect([...apparentIds({ ids, reflectedIds }, new Set([FLOOR]))]).toEqual([BOX, WALL]);
  });

  it("in the mirror test room the box, out of the camera's direct view, is seen in the mirror", () => {
    const b = renderBundle(mirrorTask(), "gt");
    const v = b.views[0]!;
    const shown = apparentIds(v, new Set(b.manifest.instances.filter((e) => e.structure).map((e) => e.id)));
    const count = (a: Uint16Array, id: number) => a.reduce((s, x) => s + (x === id ? 1 : 0), 0);
    expect(count(v.ids, BOX_ID)).toBe(0);
    expect(count(shown, BOX_ID)).toBeGreaterThan(0);
    expect(count(shown, BOX_ID)).toBe(count(v.reflectedIds!, BOX_ID));
    expect(count(shown, MIRROR_ID)).toBe(count(v.ids, MIRROR_ID) - count(shown, BOX_ID));
  });
});
