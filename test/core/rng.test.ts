import { describe, expect, it } from "vitest";
import { Rng } from "../../core/math/rng.js";
import { fillNormals } from "../../reconstruct/noisy/filters.js";
import { NORMAL_TABLE } from "../../reconstruct/noisy/normalTable.js";

describe("Rng.fillUint32", () => {
  it("writes the same stream as nextUint32 and leaves the generator where those calls would", () => {
    for (const count of [0, 1, 7, 4096, 10_001]) {
      const a = new Rng(`bulk-${count}`),
        b = new Rng(`bulk-${count}`);
      const bulk = new Uint32Array(count + 3);
      a.fillUint32(bulk, count);
      const one = Array.from({ length: count }, () => b.nextUint32());
      expect(Array.from(bulk.subarray(0, count))).toEqual(one);
      expect(Array.from(bulk.subarray(count))).toEqual([0, 0, 0]);
      // the state advanced exactly count draws
      expect([a.nextUint32(), a.next()]).toEqual([b.nextUint32(), b.next()]);
    }
  });

  it("gives fillNormals the plain stream: one word per pair of samples, an odd last sample from a word's high half", () => {
    // lengths across fillNormals' 4096-word chunks, odd and even
    for (const n of [1, 2, 8191, 8192, 8193, 20_001]) {
      const rng = new Rng(`normals-${n}`),
        ref = new Rng(`normals-${n}`);
      const out = new Float32Array(n);
      fillNormals(rng, out);
      const want = new Float32Array(n);
      let i = 0;
      for (; i + 1 < n; i += 2) {
        const u = ref.nextUint32();
        want[i] = NORMAL_TABLE[u & 0xffff]!;
        want[i + 1] = NORMAL_TABLE[u >>> 16]!;
      }
      if (i < n) want[i] = NORMAL_TABLE[ref.nextUint32() >>> 16]!;
      expect(Buffer.from(out.buffer).equals(Buffer.from(want.buffer))).toBe(true);
      expect(rng.nextUint32()).toBe(ref.nextUint32());
    }
  });
});
