/** The question's mentions (src/reason/mentions.ts): found once per (vocabulary, text), shared read-only. */
import { describe, expect, it } from "vitest";
import { findMentions, vocabulary } from "../../../src/reason/mentions.js";

describe("findMentions", () => {
  it("reads categories, colours, counts and the words before them; a repeated question gets the same frozen mentions", () => {
    const text = "Is the red mug closer to three cans or to the green can #2?";
    const vocab = vocabulary();
    const m = findMentions(text, vocab);
    expect(m.map((x) => [x.category, x.color, x.plural, x.count, x.name])).toEqual([
      ["mug", "red", false, 1, "the red mug"],
      ["can", "", true, 3, "the can"],
      ["can", "green", false, 1, "the green can #2"],
    ]);
    expect(m[1]!.before).toMatch(/closer to three$/);
    expect(findMentions(text, vocab)).toBe(m);
    expect(Object.isFrozen(m) && m.every((x) => Object.isFrozen(x))).toBe(true);
    // another vocabulary is another search: an extra category of an instance table is found
    const extra = findMentions("Where is the flux capacitor?", vocabulary(["flux_capacitor"]));
    expect(extra.map((x) => x.category)).toEqual(["flux_capacitor"]);
    expect(findMentions("Where is the flux capacitor?", vocab)).toEqual([]);
  });
});
