import { describe, expect, it } from "vitest";
import { renderBundle } from "../../bridge/sim/capture.js";
import { computeEvidence, type Evidence } from "../../scenegraph/evidence.js";
import { appearanceEvidence } from "../../scenegraph/appearanceEvidence.js";
import { segmentPixelStats } from "../../scenegraph/segmentStats.js";
import { labelledBundle } from "../../reconstruct/noisy/labels.js";
import { noisyPointCloud } from "../../reconstruct/noisy/index.js";
import { FAKE_LABEL_ID_BASE } from "../../reconstruct/noisy/params.js";
import { BOX_ID, MIRROR_ID, mirrorGraphTask, mirrorTask, SEES_BOX_TRAJECTORY } from "../helpers/mirrorScene.js";
import { metaOf } from "../reconstruct/noisyHelpers.js";

// the initial view sees the box only in the mirror
const bundle = renderBundle(mirrorTask(), "gt");
const view0 = bundle.views[0]!;
const count = (a: Uint16Array, id: number) => a.reduce((s, x) => s + (x === id ? 1 : 0), 0);
const labelsOf = (ev: Evidence) => ev.segments.filter((s) => s.view === 0).map((s) => s.label);

describe("the segmentation of a view with a mirror: what the RGB shows", () => {
  it("instance and semantic masks show the box seen in the mirror, labelled box and marked inMirror", () => {
    expect(count(view0.ids, BOX_ID)).toBe(0);
    for (const mode of ["instance", "semantic"] as const) {
      const ev = computeEvidence(bundle, mode);
      const box = ev.segments.filter((s) => s.view === 0 && s.label === "box");
      expect(box, mode).toHaveLength(1);
      expect(box[0]!.inMirror, mode).toBe(true);
      expect(box[0]!.areaPx, mode).toBe(count(view0.reflectedIds!, BOX_ID));
      // the mirror's own mask: the glass's other pixels, not in a mirror of their own
      const mirror = ev.segments.filter((s) => s.view === 0 && s.label === "mirror");
      expect(mirror.length, mode).toBeGreaterThan(0);
      expect(mirror.every((s) => s.inMirror === undefined)).toBe(true);
      // the segment stats read the same ids: the box's mask shows the box's id
      expect(segmentPixelStats(ev, bundle.views).firstId[box[0]!.key]).toBe(BOX_ID);
    }
  });

  it("the oracle keeps the simulator's ids: the glass is one mask of the mirror, and no box", () => {
    const ev = computeEvidence(bundle, "oracle");
    expect(labelsOf(ev)).not.toContain("box");
    const mirror = ev.segments.find((s) => s.view === 0 && s.globalId === MIRROR_ID)!;
    expect(mirror.areaPx).toBe(count(view0.ids, MIRROR_ID));
  });

  it("appearance labels judge the reflection's mask as the box it shows", () => {
    const ev = computeEvidence(bundle, "instance");
    const key = ev.segments.find((s) => s.view === 0 && s.label === "box")!.key;
    const { labels } = appearanceEvidence(bundle, ev, "0");
    expect(labels.get(key)!.scores).toHaveProperty("box");
  });

  it("a reflection's visible share is judged against the box's mirror image, not the box where it stands", () => {
    // with the box in view too: its own projection is larger than its image in the mirror
    const b = renderBundle(mirrorGraphTask(undefined, SEES_BOX_TRAJECTORY), "gt");
    const ev = computeEvidence(b, "instance");
    const { labels } = appearanceEvidence(b, ev, "0");
    const box = ev.segments.filter((s) => s.label === "box");
    expect(box.some((s) => s.inMirror) && box.some((s) => !s.inMirror)).toBe(true);
    // the glass shows the whole mirror image: fully visible (against the box itself it read 0.28 to 0.29)
    for (const s of box) expect(labels.get(s.key)!.quality.visible, `view ${s.view}`).toBe(1);
  });

  it("label noise swaps an object's fragment in its reflections too, and draws for an object seen only in a mirror", () => {
    const swapped = "crate";
    const cloud = {
      source: "noisy" as const,
      meta: { labels: { swaps: [{ view: 0, id: BOX_ID, from: "box", to: swapped, lookalike: false, fakeId: FAKE_LABEL_ID_BASE }], phantoms: [] } },
    };
    const relabelled = labelledBundle(bundle, cloud);
    expect(count(relabelled.views[0]!.reflectedIds!, FAKE_LABEL_ID_BASE)).toBe(count(view0.reflectedIds!, BOX_ID));
    // the truth is left alone
    expect(count(view0.reflectedIds!, FAKE_LABEL_ID_BASE)).toBe(0);
    const ev = computeEvidence(relabelled, "instance");
    expect(labelsOf(ev)).toContain(swapped);
    expect(labelsOf(ev)).not.toContain("box");
    // at swap rate 1 every fragment a view's segmenter sees is swapped: the box in view 0 is one
    const c = noisyPointCloud(bundle, { noiseLevel: 1, noiseSeed: "m", noiseComponents: ["labels"], overrides: { labelSwapRate: 1 } });
    expect(
      metaOf(c)
        .labels!.swaps.filter((s) => s.view === 0)
        .map((s) => s.id),
    ).toContain(BOX_ID);
  });
});
