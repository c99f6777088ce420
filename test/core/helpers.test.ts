import { describe, expect, it } from "vitest";
import { Lru } from "../../core/lru.js";
import { isWithin } from "../../core/paths.js";
import { redactor } from "../../core/redact.js";

describe("core helpers", () => {
  it("Lru keeps the most recently used entries", () => {
    const l = new Lru<string, number>(2);
    l.set("a", 1);
    l.set("b", 2);
    expect(l.get("a")).toBe(1); // a is now the newest
    l.set("c", 3); // b goes
    expect(l.get("b")).toBeUndefined();
    expect([...l.values()]).toEqual([1, 3]);
    expect(() => new Lru(0)).toThrow();
  });

  it("isWithin compares by segment", () => {
    expect(isWithin("/data/b", "/data/b/views/x.png")).toBe(true);
    expect(isWithin("/data/b", "/data/b")).toBe(true);
    expect(isWithin("/data/b", "/data/b-evil/x.png")).toBe(false);
    expect(isWithin("/data/b", "/data/b/../b-evil/x.png")).toBe(false);
    expect(isWithin("/data/b", "/data/b/..x/y")).toBe(true); // a name that starts with two dots is inside
    expect(isWithin("/data/b", "/etc/passwd")).toBe(false);
  });

  it("redactor replaces known values, the longest first", () => {
    const r = redactor([
      ["/srv/data", "<data>"],
      ["/srv/data/runs/r-1", "<run>"],
      [undefined, "<x>"],
      ["http://h:1/v1", "<URL>"],
    ]);
    expect(r("at /srv/data/runs/r-1/items.jsonl and /srv/data/bundles via http://h:1/v1")).toBe("at <run>/items.jsonl and <data>/bundles via <URL>");
  });
});
