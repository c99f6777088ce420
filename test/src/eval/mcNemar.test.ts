/** McNemar's exact p against the binomial formula by hand and Python's exact fractions. */
import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { exactMcNemarP } from "../../../src/eval/mcNemar.js";
import { needs } from "../../helpers/system.js";

const python = needs("python3");

/** C(n, k) / 2^n summed, in exact fractions, by Python: an independent computation of the exact McNemar p. */
function pythonMcNemar(cases: Array<[number, number]>): number[] {
  const py = execFileSync(
    "/usr/bin/python3",
    [
      "-c",
      `
import json, sys
from fractions import Fraction
from math import comb
out = []
for a, b in json.loads(sys.argv[1]):
    n, k = a + b, min(a, b)
    out.append(float(min(Fraction(1), 2 * Fraction(sum(comb(n, i) for i in range(k + 1)), 2 ** n))))
print(json.dumps(out))
`,
      JSON.stringify(cases),
    ],
    { encoding: "utf8" },
  );
  return JSON.parse(py) as number[];
}

describe("McNemar's exact test", () => {
  it("matches the binomial formula by hand", () => {
    // 1 vs 9 discordant: 2·(C(10,0) + C(10,1)) / 2^10 = 22/1024
    expect(exactMcNemarP(1, 9)).toBeCloseTo(22 / 1024, 14);
    expect(exactMcNemarP(9, 1)).toBeCloseTo(22 / 1024, 14);
    // 0 vs 5: 2 / 32
    expect(exactMcNemarP(0, 5)).toBeCloseTo(0.0625, 14);
    // no discordant pair, or a tie: no evidence of a difference
    expect(exactMcNemarP(0, 0)).toBe(1);
    expect(exactMcNemarP(4, 4)).toBe(1);
    expect(() => exactMcNemarP(-1, 2)).toThrow(RangeError);
  });
  it.skipIf(python.skip)(python.title("matches Python's exact fractions, small and large counts"), () => {
    const cases: Array<[number, number]> = [
      [3, 12],
      [7, 1],
      [12, 30],
      [100, 140],
      [401, 350],
      [2, 3],
    ];
    const expected = pythonMcNemar(cases);
    cases.forEach(([a, b], i) => expect(exactMcNemarP(a, b), `${a} vs ${b}`).toBeCloseTo(expected[i]!, 12));
  });
});
