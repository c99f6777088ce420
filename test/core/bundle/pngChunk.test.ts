/** A PNG chunk is its data's length (big-endian), its type, the data and the CRC-32 of type and data (PNG spec, 5.3). */
import { describe, expect, it } from "vitest";
import { pngChunk } from "../../../core/bundle/pngChunk.js";

describe("pngChunk", () => {
  it("writes the empty IEND chunk every PNG ends with, CRC AE 42 60 82", () => {
    expect(pngChunk("IEND", Buffer.alloc(0)).toString("hex")).toBe("0000000049454e44ae426082");
  });

  it("puts the data's length first and covers the type in the CRC", () => {
    const data = Buffer.from([1, 2, 3, 4, 5]);
    const a = pngChunk("tEXt", data),
      b = pngChunk("zTXt", data);
    expect(a.length).toBe(4 + 4 + 5 + 4);
    expect(a.readUInt32BE(0)).toBe(5);
    expect(a.toString("ascii", 4, 8)).toBe("tEXt");
    expect(a.subarray(8, 13).equals(data)).toBe(true);
    expect(a.readUInt32BE(13)).not.toBe(b.readUInt32BE(13));
  });
});
