import { describe, expect, it } from "vitest";
import { DEFAULT_MAX_IMAGES, MAX_IMAGES } from "../../../src/prompt/formats.js";
import { selectViews } from "../../../src/prompt/viewSelection.js";

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
