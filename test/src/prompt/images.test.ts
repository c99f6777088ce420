import { describe, expect, it } from "vitest";
import { decodePng } from "../../../core/bundle/png.js";
import { bundleImages, describeImages } from "../../../src/prompt/images.js";
import { bundleOf, smallTask } from "./bundles.js";

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

describe("images of a changing world", () => {
  it("show each phase's first view in single mode, and say the scene may have changed between them", async () => {
    const { changingWorld, bundleOf } = await import("../../helpers/changingWorld.js");
    const w = changingWorld();
    const single = bundleImages(bundleOf(w, "single"), "single");
    expect(single.views.map((v) => [v.view, v.phase?.label])).toEqual([
      [0, "Phase 1"],
      [1, "Phase 2"],
    ]);
    expect(describeImages(single)).toContain("- image 2: view 1, Phase 2: the scene may have changed since the previous image, while no one watched");
    const multi = bundleImages(bundleOf(w, "multi"), "multi", 8);
    // 8 images shared out among the two phases' 15 views each, each phase's first view among them
    expect(multi.views.map((v) => v.view)).toEqual([0, 5, 9, 14, 15, 20, 24, 29]);
    expect(multi.views.filter((v) => v.phase?.first).map((v) => v.view)).toEqual([0, 15]);
  });
});
