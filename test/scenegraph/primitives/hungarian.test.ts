/** Hungarian assignment against brute force over all assignments of small matrices. */
import { describe, expect, it } from "vitest";
import { Rng } from "../../../core/math/rng.js";
import { hungarian } from "../../../scenegraph/primitives/hungarian.js";

/** Best total over all injective maps of the smaller side into the larger. */
function bruteBest(cost: Float64Array, rows: number, cols: number, maximize: boolean): number {
  let best = maximize ? -Infinity : Infinity;
  const usedCols = new Uint8Array(cols);
  const usedRows = new Uint8Array(rows);
  const rec = (k: number, acc: number) => {
    if (rows <= cols) {
      if (k === rows) {
        best = maximize ? Math.max(best, acc) : Math.min(best, acc);
        return;
      }
      for (let j = 0; j < cols; j++)
        if (!usedCols[j]) {
          usedCols[j] = 1;
          rec(k + 1, acc + cost[k * cols + j]!);
          usedCols[j] = 0;
        }
    } else {
      if (k === cols) {
        best = maximize ? Math.max(best, acc) : Math.min(best, acc);
        return;
      }
      for (let i = 0; i < rows; i++)
        if (!usedRows[i]) {
          usedRows[i] = 1;
          rec(k + 1, acc + cost[i * cols + k]!);
          usedRows[i] = 0;
        }
    }
  };
  rec(0, 0);
  return best;
}

describe("hungarian", () => {
  it("matches brute force on random square and rectangular matrices, minimising and maximising", () => {
    const rng = new Rng("hungarian");
    for (let t = 0; t < 150; t++) {
      const rows = rng.int(1, 6),
        cols = rng.int(1, 6);
      const cost = new Float64Array(rows * cols);
      // small integer costs make many ties; real-valued ones exercise the potentials
      for (let k = 0; k < cost.length; k++) cost[k] = t % 2 ? rng.int(0, 4) : rng.uniform(-3, 10);
      for (const maximize of [false, true]) {
        const r = hungarian(cost, rows, cols, { maximize });
        expect(r.total).toBeCloseTo(bruteBest(cost, rows, cols, maximize), 9);
        // a valid partial permutation covering the smaller side
        const assigned = Array.from(r.rowToCol).filter((c) => c >= 0);
        expect(assigned.length).toBe(Math.min(rows, cols));
        expect(new Set(assigned).size).toBe(assigned.length);
        for (let i = 0; i < rows; i++) if (r.rowToCol[i]! >= 0) expect(r.colToRow[r.rowToCol[i]!]).toBe(i);
      }
    }
  });

  it("number[][] form returns the column of each row (used by the diagnosis stage)", () => {
    const w = [
      [0.9, 0.1, 0],
      [0.8, 0.7, 0],
    ];
    expect(Array.from(hungarian(w, "max"))).toEqual([0, 1]);
    expect(Array.from(hungarian(w, "min"))).toEqual([1, 2]); // 0.1 + 0
    expect(Array.from(hungarian(w))).toEqual([1, 2]); // minimising is the default
    expect(Array.from(hungarian([[1], [0], [5]], "min"))).toEqual([-1, 0, -1]);
  });

  it("empty matrices and bad input", () => {
    expect(hungarian(new Float64Array(0), 0, 4).rowToCol.length).toBe(0);
    expect(hungarian(new Float64Array(0), 3, 0).rowToCol).toEqual(new Int32Array([-1, -1, -1]));
    expect(() => hungarian([1, 2, 3], 2, 2)).toThrow(/expected 2 x 2/);
    expect(() => hungarian([1, Infinity, 3, 4], 2, 2)).toThrow(/cost\[0\]\[1\] = Infinity is not finite/);
    expect(() => hungarian([[1, 2], [3]])).toThrow(/row 1 has 1 entries/);
  });
});
