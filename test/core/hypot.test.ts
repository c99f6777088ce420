import { describe, expect, it } from "vitest";
import { hypot3 } from "../../core/math/hypot.js";
import { Rng } from "../../core/math/rng.js";

describe("hypot3", () => {
  it("is Math.hypot bit for bit, on random magnitudes over 24 decades and on the special values", () => {
    const rng = new Rng("hypot3");
    const r = () => {
      const k = rng.next();
      if (k < 0.05) return 0;
      if (k < 0.1) return -0;
      return (rng.next() - 0.5) * 10 ** (Math.floor(rng.next() * 24) - 12);
    };
    let differ = 0;
    for (let i = 0; i < 200_000; i++) {
      const x = r(),
        y = r(),
        z = r();
      if (!Object.is(hypot3(x, y, z), Math.hypot(x, y, z))) differ++;
    }
    expect(differ).toBe(0);
    const special = [NaN, Infinity, -Infinity, 0, -0, 1e308, -1e308, 5e-324, 1, -3];
    for (const x of special)
      for (const y of special) for (const z of special) expect(Object.is(hypot3(x, y, z), Math.hypot(x, y, z)), `${x} ${y} ${z}`).toBe(true);
  });

  it("hypot3 gives Math.hypot's bits, edge values included", () => {
    const rng = new Rng("hypot3");
    const differing: number[][] = [];
    for (let i = 0; i < 500_000; i++) {
      const scale = 10 ** (rng.next() * 8 - 4);
      const a = (rng.next() - 0.5) * scale,
        b = (rng.next() - 0.5) * (i % 3 ? scale : 1e-3),
        c = (rng.next() - 0.5) * 8;
      if (hypot3(a, b, c) !== Math.hypot(a, b, c)) differing.push([a, b, c]);
    }
    expect(differing).toEqual([]);
    const edges: Array<[number, number, number]> = [
      [0, 0, 0],
      [-0, 0, -0],
      [NaN, 1, 2],
      [Infinity, NaN, 1],
      [-Infinity, 1, 2],
      [1e308, 1e308, 1],
      [5e-324, 0, 5e-324],
      [3, 4, 12],
    ];
    for (const [a, b, c] of edges) expect(Object.is(hypot3(a, b, c), Math.hypot(a, b, c))).toBe(true);
  });
});
