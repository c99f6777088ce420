/** forEachRun (core/runs.ts): every maximal run of one value, in order, covering the array once. */
import { describe, expect, it } from "vitest";
import { forEachRun } from "../../core/runs.js";

describe("forEachRun", () => {
  it("visits each maximal run once, in order", () => {
    const runs: Array<[number, number, number]> = [];
    forEachRun(Int32Array.of(-1, -1, 4, 4, 4, 2, -1, 2, 2), (v, from, to) => runs.push([v, from, to]));
    expect(runs).toEqual([
      [-1, 0, 2],
      [4, 2, 5],
      [2, 5, 6],
      [-1, 6, 7],
      [2, 7, 9],
    ]);
    const none: number[] = [];
    forEachRun(new Uint16Array(0), (v) => none.push(v));
    expect(none).toEqual([]);
  });
});
