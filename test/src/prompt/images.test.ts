import { describe, expect, it } from "vitest";
import { decodePng } from "../../../core/bundle/png.js";
import { bundleImages, DEFAULT_MAX_IMAGES, describeImages, MAX_IMAGES, selectViews } from "../../../src/prompt/images.js";
import { bundleOf, smallTask } from "./bundles.js";

describe("selectViews", () => {
  it("single is view 0", () => {
    expect(selectViews(30, "single")).toEqual([0]);
    expect(selectViews(1, "single")).toEqual([0]);
  });
  it("multi spaces up to maxImages views evenly, first and last included, in order", () => {
    expect(DEFAULT_MAX_IMAGES).toBe(8);
    expect(selectViews(30, "multi")).toEqual([0, 4, 8, 12, 17, 21, 25, 29]);
    expect(selectViews(12, "multi", 4)).toEqual([0, 4, 7, 11]);
    expect(selectViews(5, "multi")).toEqual([0, 1, 2, 3, 4]);
    expect(selectViews(30, "multi", MAX_IMAGES)).toEqual(Array.from({ length: 30 }, (_, i) => i));
    expect(selectViews(30, "multi", 1)).toEqual([0]);
    for (let n = 1; n <= 40; n++) {
      for (const k of [1, 2, 3, 8, 30]) {
        const s = selectViews(n, "multi", k);
        expect(s.length).toBe(Math.min(n, k));
        expect(s[0]).toBe(0);
        if (s.length > 1) expect(s[s.length - 1]).toBe(n - 1);
        for (let i = 1; i < s.length; i++) expect(s[i]!).toBeGreaterThan(s[i - 1]!);
      }
    }
  });
  it("rejects maxImages outside 1..30", () => {
    expect(() => selectViews(30, "multi", 0)).toThrow(/1 to 30/);
    expect(() => selectViews(30, "multi", 31)).toThrow(/1 to 30/);
    expect(() => selectViews(0, "multi")).toThrow(/at least one view/);
  });
});

describe("bundleImages", () => {
  const task = smallTask();
  const multi = bundleOf(task, "multi");

  it("encodes the chosen views as PNGs that decode to the bundle's pixels, with the actions in between", () => {
    const p = bundleImages(multi, "multi", 4);
    expect(p.views.map((v) => v.view)).toEqual([0, 10, 19, 29]);
    expect(p.images).toHaveLength(4);
    p.images.forEach((im, k) => {
      expect(im.mimeType).toBe("image/png");
      const dec = decodePng(im.data);
      const v = multi.views[p.views[k]!.view]!;
      expect([dec.width, dec.height, dec.channels]).toEqual([v.width, v.height, 3]);
      expect(Buffer.from(dec.data as Uint8Array).equals(Buffer.from(v.rgb))).toBe(true);
    });
    expect(p.views[0]!.actions).toEqual([]);
    const expected = multi.views.slice(11, 20).map((v) => v.action);
    expect(p.views[2]!.actions).toEqual(expected);
    const text = describeImages(p);
    expect(text).toContain("4 images follow this text, in this order (4 of the 30 views taken");
    expect(text).toContain("- image 1: view 0, your initial view");
    expect(text).toContain(`- image 3: view 19, after ${expected.join(", ")}`);
  });

  it("single sends view 0 only", () => {
    const p = bundleImages(multi, "single");
    expect(p.views).toEqual([{ view: 0, actions: [] }]);
    expect(describeImages(p)).toBe("One image follows this text: your initial view (view 0).");
  });
});
