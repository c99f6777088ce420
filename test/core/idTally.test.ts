/**
 * The id tallies count by runs (core/idTally.ts); they must give what a Map counting element by element
 * gives, its ids in the order a Map inserts them (first appearance), on runs of every length and on none.
 */
import { describe, expect, it } from "vitest";
import { Rng } from "../../core/math/rng.js";
import { countEachId, tallyIds } from "../../core/idTally.js";

function mapTally(values: ArrayLike<number>, at?: ArrayLike<number>): { ids: number[]; counts: number[] } {
  const m = new Map<number, number>();
  const n = at ? at.length : values.length;
  for (let k = 0; k < n; k++) {
    const id = values[at ? at[k]! : k]!;
    m.set(id, (m.get(id) ?? 0) + 1);
  }
  return { ids: [...m.keys()], counts: [...m.values()] };
}

/** Runs of random ids (1 to `maxRun` long) from a small or a large id range. */
function runs(rng: Rng, n: number, maxRun: number, idRange: number): Uint16Array {
  const out = new Uint16Array(n);
  for (let k = 0; k < n; ) {
    const id = rng.int(0, idRange - 1),
      len = rng.int(1, maxRun);
    for (let j = 0; j < len && k < n; j++) out[k++] = id;
  }
  return out;
}

describe("id tallies", () => {
  it("count every element and keep first-appearance order, at positions or over all, as a Map does", () => {
    const rng = new Rng("id-tally");
    for (const [n, maxRun, idRange] of [
      [0, 1, 5],
      [1, 1, 5],
      [2, 1, 2],
      [1000, 1, 7],
      [5000, 40, 12],
      [20000, 300, 65536],
      [3000, 3, 3],
      [7, 2, 2],
      [4001, 5, 65536],
    ] as const) {
      const values = runs(rng, n, maxRun, idRange);
      expect(tallyIds(values)).toEqual(mapTally(values));
      // positions in increasing order with gaps (a node's members) and in a shuffled order
      const at = Uint32Array.from({ length: Math.floor(n / 2) }, () => rng.int(0, Math.max(0, n - 1))).sort();
      if (n > 0) expect(tallyIds(values, at)).toEqual(mapTally(values, at));
      const shuffled = rng.shuffle([...at]);
      if (n > 0) expect(tallyIds(values, shuffled)).toEqual(mapTally(values, shuffled));
      // countEachId reads two ids a word: views that start off a word and end on an odd id too
      for (const part of [values, values.subarray(1), values.subarray(1, Math.max(1, n - 1)), values.subarray(0, Math.max(0, n - 1))]) {
        const into = new Uint32Array(65536).fill(3);
        countEachId(part, into);
        const want = mapTally(part);
        for (let j = 0; j < want.ids.length; j++) expect(into[want.ids[j]!]).toBe(want.counts[j]! + 3);
        expect(into.reduce((s, c) => s + c, 0)).toBe(part.length + 3 * 65536);
      }
    }
  });

  it("leaves its counters clear between calls", () => {
    const a = Uint16Array.from([4, 4, 9, 4]);
    expect(tallyIds(a)).toEqual({ ids: [4, 9], counts: [3, 1] });
    expect(tallyIds(a)).toEqual({ ids: [4, 9], counts: [3, 1] });
    expect(tallyIds(Uint16Array.from([9]))).toEqual({ ids: [9], counts: [1] });
  });
});
