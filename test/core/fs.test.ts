import { describe, expect, it } from "vitest";
import { mkdirSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { checkWritable, writeFileAtomic } from "../../core/fs.js";
import { InputError } from "../../core/errors.js";

describe("writeFileAtomic", () => {
  it("removes its temporary file when the write fails, and names the path", () => {
    const dir = mkdtempSync(join(tmpdir(), "esi3d-fs-"));
    // a non-empty directory where the file goes: the data is written, the rename fails
    mkdirSync(join(dir, "out.json"));
    writeFileSync(join(dir, "out.json", "keep"), "x");
    expect(() => writeFileAtomic(join(dir, "out.json"), "{}")).toThrow(/out\.json: cannot write/);
    expect(readdirSync(dir)).toEqual(["out.json"]);
  });
  it("below a file: an input error naming the path, nothing left", () => {
    const dir = mkdtempSync(join(tmpdir(), "esi3d-fs-"));
    writeFileSync(join(dir, "afile"), "x");
    expect(() => writeFileAtomic(join(dir, "afile", "g.json"), "{}")).toThrow(InputError);
    expect(readdirSync(dir)).toEqual(["afile"]);
  });
});

describe("checkWritable", () => {
  it("accepts a path to be made, refuses a file where a directory goes and the reverse, and creates nothing", () => {
    const dir = mkdtempSync(join(tmpdir(), "esi3d-fs-"));
    writeFileSync(join(dir, "afile"), "x");
    mkdirSync(join(dir, "adir"));
    expect(() => checkWritable(join(dir, "new", "deeper", "g.json"), "file")).not.toThrow();
    expect(() => checkWritable(join(dir, "run"), "dir")).not.toThrow();
    expect(() => checkWritable(join(dir, "adir"), "dir")).not.toThrow();
    expect(() => checkWritable(join(dir, "afile", "g.json"), "file")).toThrow(/afile.*is a file, not a directory/);
    expect(() => checkWritable(join(dir, "adir"), "file")).toThrow(/adir: cannot write: it is a directory/);
    expect(() => checkWritable(join(dir, "afile"), "dir")).toThrow(/afile: cannot write: it exists and is not a directory/);
    expect(readdirSync(dir).sort()).toEqual(["adir", "afile"]);
  });
});
