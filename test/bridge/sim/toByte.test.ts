/** The renderer's byte of a shaded value is Math.round's, clamped to 0-255, wherever rounding could go wrong. */
import { describe, expect, it } from "vitest";
import { toByte } from "../../../bridge/sim/toByte.js";
import { Rng } from "../../../core/math/rng.js";

describe("toByte", () => {
  it("stores a shaded value as Math.round's byte, next to every half-integer, out of range and NaN", () => {
    const reference = (v: number) => (v > 255 ? 255 : v < 0 ? 0 : Math.round(v));
    const bits = new Float64Array(1),
      word = new BigInt64Array(bits.buffer);
    const a = new Uint8Array(1),
      b = new Uint8Array(1);
    const same = (v: number) => {
      a[0] = toByte(v);
      b[0] = reference(v);
      return a[0] === b[0];
    };
    // the 40 doubles on each side of every n + 0.5 (where rounding could go wrong), and of 0 and 255
    for (const centre of [...Array.from({ length: 256 }, (_, n) => n + 0.5), 0, 255]) {
      bits[0] = centre;
      word[0]! -= 40n;
      for (let k = 0; k <= 80; k++, word[0]!++) expect(same(bits[0]!), `${bits[0]}`).toBe(true);
    }
    const rng = new Rng("bytes");
    for (let i = 0; i < 100_000; i++) expect(same(rng.uniform(-10, 270))).toBe(true);
    for (const v of [NaN, -0, Infinity, -Infinity, 1e-300, -1e-300, 0.49999999999999994]) expect(same(v), `${v}`).toBe(true);
  });
});
