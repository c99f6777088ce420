/**
 * The pickle writer, read back by Debian's Python (/usr/bin/python3: pickle, numpy 1.24): every kind of
 * value it writes comes back as the Python type and value meant, numpy arrays with their dtype, shape and
 * bytes; the stream is also checked opcode by opcode with pickletools.
 */
import { describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { NdArray, pickle, PyFloat } from "../../scenegraph/pickle.js";
import { needs } from "../helpers/system.js";

const py = needs("python3-numpy");

const PYTHON = "/usr/bin/python3";

/** Unpickles `data` in Python and returns what the script prints (JSON). */
function python(data: Buffer, script: string): unknown {
  const r = spawnSync(
    PYTHON,
    [
      "-c",
      `import sys, pickle, json, pickletools, io\nimport numpy as np\ndata = sys.stdin.buffer.read()\npickletools.dis(data, out=io.StringIO())\nv = pickle.loads(data)\n${script}`,
    ],
    { input: data, encoding: "utf8" },
  );
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
}

describe.skipIf(py.skip)(py.title("pickle"), () => {
  it("writes plain values Python reads back with their types", () => {
    const value = {
      none: null,
      yes: true,
      no: false,
      ints: [0, 255, 256, 65535, 65536, -1, -(2 ** 31), 2 ** 31 - 1, 2 ** 31, -(2 ** 31) - 1, Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER],
      big: [2n ** 64n, -(2n ** 70n), 127n, 128n, -128n, -129n],
      floats: [0.5, -1.25e-300, 1e300, new PyFloat(3), Infinity, 2 ** 60],
      text: ["", "a", "é ü 漢字", "x".repeat(300)],
      bytes: [Uint8Array.of(0, 1, 255), new Uint8Array(300).fill(7)],
      nested: { empty_list: [], empty_dict: {}, list: [[1, [2, { k: "v" }]]] },
    };
    const out = python(
      pickle(value),
      `
def desc(x):
    if x is None or isinstance(x, bool): return [type(x).__name__, x]
    if isinstance(x, int): return ["int", str(x)]
    if isinstance(x, float): return ["float", repr(x)]
    if isinstance(x, str): return ["str", x]
    if isinstance(x, bytes): return ["bytes", list(x)]
    if isinstance(x, tuple): return ["tuple", [desc(y) for y in x]]
    if isinstance(x, list): return ["list", [desc(y) for y in x]]
    if isinstance(x, dict): return ["dict", {k: desc(y) for k, y in x.items()}]
    return ["?", type(x).__name__]
print(json.dumps(desc(v)))`,
    ) as [string, Record<string, [string, unknown]>];
    expect(out[0]).toBe("dict");
    const d = out[1];
    expect(Object.keys(d)).toEqual(Object.keys(value));
    expect(d.none).toEqual(["NoneType", null]);
    expect(d.yes).toEqual(["bool", true]);
    expect(d.no).toEqual(["bool", false]);
    expect(d.ints).toEqual(["list", value.ints.map((n) => ["int", String(n)])]);
    expect(d.big).toEqual(["list", value.big.map((n) => ["int", String(n)])]);
    expect(d.floats).toEqual([
      "list",
      [
        ["float", "0.5"],
        ["float", "-1.25e-300"],
        ["float", "1e+300"],
        ["float", "3.0"],
        ["float", "inf"],
        ["float", "1.152921504606847e+18"],
      ],
    ]);
    expect(d.text).toEqual(["list", value.text.map((s) => ["str", s])]);
    expect(d.bytes).toEqual(["list", value.bytes.map((b) => ["bytes", Array.from(b)])]);
    expect(d.nested).toEqual([
      "dict",
      {
        empty_list: ["list", []],
        empty_dict: ["dict", {}],
        list: [
          "list",
          [
            [
              "list",
              [
                ["int", "1"],
                [
                  "list",
                  [
                    ["int", "2"],
                    ["dict", { k: ["str", "v"] }],
                  ],
                ],
              ],
            ],
          ],
        ],
      },
    ]);
  });

  it("writes numpy arrays numpy 1.24 rebuilds with their dtype, shape and values", () => {
    const f8 = new Float64Array([0, 1.5, -2, 1e-310, Math.PI, 6]);
    const arrays = {
      f8: new NdArray("f8", [2, 3], f8),
      f4: new NdArray("f4", [4], new Float32Array([0.1, -0.2, 3e38, 0])),
      i8: new NdArray("i8", [2], new BigInt64Array([-(2n ** 62n), 5n])),
      i4: new NdArray("i4", [1, 3], new Int32Array([-1, 0, 2 ** 31 - 1])),
      u1: new NdArray("u1", [3], Uint8Array.of(0, 128, 255)),
      b1: new NdArray("b1", [2], Uint8Array.of(1, 0)),
      empty: new NdArray("f8", [0, 3], new Float64Array(0)),
      big: new NdArray(
        "f4",
        [1000, 3],
        Float32Array.from({ length: 3000 }, (_, i) => i / 7),
      ),
      view: new NdArray("f8", [2], f8.subarray(4)), // an array that is a window of a larger buffer
    };
    const out = python(
      pickle(arrays),
      `
print(json.dumps({k: {"type": type(a).__name__, "dtype": a.dtype.str, "shape": list(a.shape), "hex": a.tobytes().hex(), "c": bool(a.flags.c_contiguous), "writeable": bool(a.flags.writeable)} for k, a in v.items()}))`,
    ) as Record<string, { type: string; dtype: string; shape: number[]; hex: string; c: boolean; writeable: boolean }>;
    const want: Record<string, string> = { f8: "<f8", f4: "<f4", i8: "<i8", i4: "<i4", u1: "|u1", b1: "|b1", empty: "<f8", big: "<f4", view: "<f8" };
    for (const [k, a] of Object.entries(arrays)) {
      expect(out[k], k).toEqual({
        type: "ndarray",
        dtype: want[k],
        shape: a.shape,
        hex: Buffer.from(a.data.buffer, a.data.byteOffset, a.data.byteLength).toString("hex"),
        c: true,
        writeable: true,
      });
    }
  });

  it("refuses arrays whose data does not match the dtype or the shape", () => {
    expect(() => new NdArray("f8", [2], new Float32Array(2) as unknown as Float64Array)).toThrow(/dtype f8 needs a Float64Array/);
    expect(() => new NdArray("i4", [2, 2], new Int32Array(3))).toThrow(/shape \[2, 2\] holds 4 values, the data 3/);
  });
});
