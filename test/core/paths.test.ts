import { describe, expect, it } from "vitest";
import { isSafeSegment, pathBelow, SafeSegmentSchema } from "../../core/paths.js";
import { InputError } from "../../core/errors.js";

describe("safe path segments", () => {
  it("accept task ids as the generator and importer make them", () => {
    for (const id of ["geometric_configuration-000", "esi-12345", "a.b", "A_b-9", "x".repeat(128)]) expect(isSafeSegment(id), id).toBe(true);
  });
  it("refuse anything that is not one plain name", () => {
    for (const id of ["", ".", "..", "...", "a/b", "a\\b", "../x", ".hidden", "a..b", "x".repeat(129), "a b", "a\0b", "%2e%2e", "é"])
      expect(isSafeSegment(id), JSON.stringify(id)).toBe(false);
    expect(SafeSegmentSchema.safeParse("..").success).toBe(false);
  });
  it("pathBelow refuses a path that leaves its root or is the root itself", () => {
    expect(pathBelow("/r/out", "t", "single")).toBe("/r/out/t/single");
    for (const parts of [["..", "single"], ["..."], ["."], ["a", "..", ".."], ["/etc"]]) {
      if (parts[0] === "/etc") {
        expect(pathBelow("/r/out", ...parts)).toBe("/r/out/etc"); // join keeps it below the root
        continue;
      }
      if (parts[0] === "...") continue; // "..." is a plain (odd) name below the root; the schema refuses it
      expect(() => pathBelow("/r/out", ...parts), parts.join("/")).toThrow(InputError);
    }
  });
});
