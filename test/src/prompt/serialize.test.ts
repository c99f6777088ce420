import { describe, expect, it } from "vitest";
import { fmt, serializeGraph, type SerializeOptions } from "../../../src/prompt/serialize.js";
import { GRAPH_FORMATS } from "../../../src/prompt/formats.js";
import { graph, gridScene, node, tableScene } from "./graphs.js";

const ser = (format: SerializeOptions["format"], uncertainty = false, cogmapSize?: number) =>
  serializeGraph(tableScene(), { format, uncertainty, ...(cogmapSize ? { cogmapSize } : {}) });

/** Anything only the uncertainty-aware serialization may contain. */
const UNCERTAINTY_WORDS = /margin|duplicate|fragment|low.support|evidence|confidence|label.votes|"support"|uncertain/i;

describe("number helpers", () => {
  it("prints fixed decimals and never -0.00", () => {
    expect(fmt(1.2)).toBe("1.20");
    expect(fmt(-0.001)).toBe("0.00");
    expect(fmt(0.375)).toBe("0.38");
  });
  it("gives box yaw in whole degrees in [0, 180)", () => {
    // the yaw a node's text line prints for its box
    const yawDeg = (yaw: number) => {
      const g = tableScene();
      g.nodes[0]!.box.yaw = yaw;
      return Number(/^n0 is .*, yaw (\d+)°/m.exec(serializeGraph(g, { format: "text", uncertainty: false }))![1]);
    };
    expect(yawDeg(0)).toBe(0);
    expect(yawDeg((3 * Math.PI) / 2)).toBe(90);
    expect(yawDeg(-0.3)).toBe(163);
    expect(yawDeg(Math.PI - 1e-6)).toBe(0);
  });
});

describe("every format states its conventions", () => {
  for (const format of GRAPH_FORMATS) {
    it(format, () => {
      const s = ser(format);
      expect(s).toContain("Z up");
      expect(s).toContain("metres");
      expect(s).toMatch(/yaw 90°/); // the agent's heading, in degrees
      expect(s).toContain("counter-clockwise");
      expect(s).toContain("camera pitched 15° down");
      expect(s).toContain("1.20 m above the floor");
      expect(s).toContain("Left, right, in front of and behind are meant as seen from this initial view");
      expect(s).not.toMatch(UNCERTAINTY_WORDS);
    });
  }
});

describe("json", () => {
  it("lists objects like ConceptGraphs, metres to 2 decimals, yaw in degrees", () => {
    const s = ser("json");
    expect(s).toContain("Scene graph: 4 objects.");
    expect(s).toContain("`yaw_deg` is the angle in degrees");
    expect(s).toContain("forward = [0.00, 1.00] in x, y; your right = [1.00, 0.00]");
    expect(s).toContain("stand at x 0.00, y -2.00");
    expect(s).toContain('{"id": "n0", "label": "table", "colour": "brown", "centre": [1.00, 0.50, 0.38], "extent": [1.20, 0.80, 0.75], "yaw_deg": 0}');
    expect(s).toContain('{"id": "n1", "label": "mug", "colour": "white", "centre": [1.20, 0.40, 0.80], "extent": [0.08, 0.08, 0.10], "yaw_deg": 90}');
    expect(s).toContain('{"id": "n3", "label": "armchair", "centre": [-1.00, -1.00, 0.45], "extent": [0.50, 0.50, 0.90], "yaw_deg": 163}');
    expect(s).not.toContain("Relations");
    // the object list is valid JSON
    const list = JSON.parse(s.slice(s.indexOf("Objects (JSON list):\n") + "Objects (JSON list):\n".length)) as { id: string }[];
    expect(list.map((o) => o.id)).toEqual(["n0", "n1", "n2", "n3"]);
  });

  it("with uncertainty: support, label votes and flags per object, and how to weigh them", () => {
    const s = ser("json", true);
    expect(s).toContain(
      '{"id": "n2", "label": "mug", "colour": "red", "centre": [1.25, 0.42, 0.80], "extent": [0.03, 0.05, 0.06], "yaw_deg": 0, "support": {"views": 1, "points": 120, "confidence": 1.40}, ' +
        '"label_votes": {"mug": 0.70, "cup": 0.30}, "flags": {"possible_duplicate_of": ["n1"], "fragment": true, "low_support": true}}',
    );
    expect(s).toContain('"support": {"views": 2, "points": 900, "confidence": 3.25}, "flags": {}}');
    expect(s).toContain("They may be one object seen twice");
    expect(s).toContain("it may be spurious");
    expect(s).toContain("within 0.05 m of this one");
    expect(s).toContain("fewer than 400 points");
    expect(s).not.toContain("margin"); // no relations in this format
  });
});

describe("relations", () => {
  it("adds relation triples with closest and centre distances, and the predicate definitions", () => {
    const s = ser("relations");
    expect(s).toContain("Scene graph: 4 objects, 5 relations.");
    expect(s).toContain('{"subject": "n1", "predicate": "on", "object": "n0", "closest_m": 0.00, "centre_m": 0.43}');
    expect(s).toContain('{"subject": "n3", "predicate": "left_of", "object": "n0", "closest_m": 1.30, "centre_m": 2.46}');
    expect(s).toContain("`closest_m` is the distance between the two objects' closest points, `centre_m` the distance between their box centres");
    expect(s).toContain("at most 2.5 cm apart"); // TOUCHING_GAP_M
    expect(s).toContain("within 0.50 m of each other");
    expect(s).toContain("`left_of` / `right_of` / `in_front_of` / `behind`: from your initial view");
    const rels = JSON.parse(s.slice(s.indexOf("Relations (JSON list):\n") + "Relations (JSON list):\n".length)) as unknown[];
    expect(rels).toHaveLength(5);
  });

  it("with uncertainty: each relation's margin and the small-margin warning", () => {
    const s = ser("relations", true);
    expect(s).toContain('{"subject": "n1", "predicate": "touching", "object": "n2", "closest_m": 0.01, "centre_m": 0.05, "margin_m": 0.00}');
    expect(s).toContain('"predicate": "left_of", "object": "n0", "closest_m": 1.30, "centre_m": 2.46, "margin_m": 1.90}');
    expect(s).toContain("A relation with a margin under 0.05 m may well be wrong");
  });
});

describe("text", () => {
  it("writes one sentence per object with its relations, symmetric ones on both sides", () => {
    const s = ser("text");
    expect(s).toContain("n0 is a brown table at (1.00, 0.50, 0.38) m, 1.20 × 0.80 × 0.75 m, yaw 0°; it is supporting n1 (a mug); right of n3 (an armchair).");
    expect(s).toContain("n1 is a white mug at (1.20, 0.40, 0.80) m, 0.08 × 0.08 × 0.10 m, yaw 90°; it is on n0 (a table); touching n2 (a mug).");
    expect(s).toContain("n2 is a red mug at (1.25, 0.42, 0.80) m, 0.03 × 0.05 × 0.06 m, yaw 0°; it is touching n1 (a mug).");
    expect(s).toContain("n3 is an armchair at (-1.00, -1.00, 0.45) m, 0.50 × 0.50 × 0.90 m, yaw 163°; it is left of n0 (a table).");
    expect(s).toContain("left of / right of / in front of / behind: from your initial view");
  });

  it("with uncertainty: evidence per object and a margin per relation", () => {
    const s = ser("text", true);
    expect(s).toContain(
      "n2 is a red mug at (1.25, 0.42, 0.80) m, 0.03 × 0.05 × 0.06 m, yaw 0°; it is touching n1 (a mug; margin 0.00 m). " +
        "Evidence: seen in 1 view, 120 points, confidence 1.40; label votes mug 0.70, cup 0.30; possible duplicate of n1 (a mug); fragment; low support.",
    );
    expect(s).toContain("it is on n0 (a table; margin 0.02 m); touching n2 (a mug; margin 0.00 m). Evidence: seen in 2 views, 900 points, confidence 3.25.");
    expect(s).toContain('"possible duplicate of": other objects with the same label');
  });
});

/** The grid a cogmap prints: its size, mapping to metres, and each node's [row, col] in graph order (read off its label's list). */
function printedMap(g: ReturnType<typeof gridScene>, size: number): { size: number; cellM: number; xMin: number; yMax: number; cells: number[][] } {
  const s = serializeGraph(g, { format: "cogmap", uncertainty: false, cogmapSize: size });
  const grid = /The map is a (\d+) × \d+ grid/.exec(s)!;
  const centre = /The centre of cell \[row, col\] is at x = (-?[\d.]+) \+ ([\d.]+) × \(col \+ 0\.5\), y = (-?[\d.]+) − [\d.]+ × \(row \+ 0\.5\)/.exec(s)!;
  const byLabel = JSON.parse(s.split("\n").find((l) => l.startsWith('{"') && l.includes("[["))!) as Record<string, number[][]>;
  const seen = new Map<string, number>();
  const cells = g.nodes.map((n) => {
    const k = seen.get(n.label) ?? 0;
    seen.set(n.label, k + 1);
    return byLabel[n.label]![k]!;
  });
  return { size: Number(grid[1]), xMin: Number(centre[1]), cellM: Number(centre[2]), yMax: Number(centre[3]), cells };
}

describe("cogmap", () => {
  it("places each object's box centre in its cell (known centres, 10 × 10)", () => {
    const s = serializeGraph(gridScene(), { format: "cogmap", uncertainty: false });
    // a (lamp) [0, 0], b and c (boxes) [9, 9] and [5, 5], d (vase) [1, 9]
    expect(s).toContain('{"box": [[9, 9], [5, 5]], "lamp": [[0, 0]], "vase": [[1, 9]]}');
    expect(s).toContain("The map is a 10 × 10 grid");
    expect(s).toContain("It covers x from 0.00 to 5.00 m and y from 0.00 to 5.00 m; each cell is 0.50 m × 0.50 m.");
    expect(s).toContain("The centre of cell [row, col] is at x = 0.00 + 0.50 × (col + 0.5), y = 5.00 − 0.50 × (row + 0.5).");
    expect(s).toContain("You (the agent) stand in cell [9, 5]");
    expect(s).toContain("facing yaw 0°");
    expect(s).toContain("points right (higher columns): one cell forward is (Δrow 0.00, Δcol 1.00); your right is (Δrow 1.00, Δcol 0.00)");
    expect(s).not.toContain("Colours"); // no colour names in this graph
  });

  it("honours the grid size (20 × 20) and keeps every centre inside its printed cell", () => {
    const m = printedMap(gridScene(), 20);
    expect(m).toMatchObject({ size: 20, cellM: 0.25, xMin: 0, yMax: 5 });
    expect(m.cells).toEqual([
      [1, 1],
      [19, 19],
      [10, 10],
      [2, 19],
    ]);
    for (const g of [tableScene(), gridScene()]) {
      for (const size of [10, 13, 20]) {
        const mm = printedMap(g, size);
        g.nodes.forEach((n, i) => {
          const [row, col] = mm.cells[i]!;
          const [x, y] = n.box.centre;
          expect(x).toBeGreaterThanOrEqual(mm.xMin + mm.cellM * col! - 1e-9);
          expect(x).toBeLessThan(mm.xMin + mm.cellM * (col! + 1) + 1e-9);
          expect(y).toBeLessThanOrEqual(mm.yMax - mm.cellM * row! + 1e-9);
          expect(y).toBeGreaterThan(mm.yMax - mm.cellM * (row! + 1) - 1e-9);
        });
      }
    }
  });

  it("lists colours in map order, and with uncertainty each instance's evidence by id", () => {
    const off = ser("cogmap");
    expect(off).toContain('Colours of the same instances, in the same order:\n{"armchair": ["unknown"], "mug": ["white", "red"], "table": ["brown"]}');
    expect(off).toContain('"mug": [[');
    const on = ser("cogmap", true);
    expect(on).toMatch(
      /\{"id": "n2", "label": "mug", "colour": "red", "cell": \[\d+, \d+\], "support": \{"views": 1, "points": 120, "confidence": 1.40\}, "label_votes": \{"mug": 0.70, "cup": 0.30\}, "flags": \{"possible_duplicate_of": \["n1"\], "fragment": true, "low_support": true\}\}/,
    );
    expect(on).not.toContain("margin");
  });

  it("rejects grid sizes outside 2..50", () => {
    expect(() => serializeGraph(gridScene(), { format: "cogmap", uncertainty: false, cogmapSize: 1 })).toThrow(/cogmapSize/);
    expect(() => serializeGraph(gridScene(), { format: "cogmap", uncertainty: false, cogmapSize: 10.5 })).toThrow(/cogmapSize/);
  });
});

describe("uncertainty on/off", () => {
  for (const format of GRAPH_FORMATS) {
    it(`${format}: off is a strict subset of the information of on`, () => {
      const off = ser(format, false),
        on = ser(format, true);
      expect(off).not.toMatch(UNCERTAINTY_WORDS);
      expect(on).toMatch(/Evidence and uncertainty:/);
      expect(on).toContain("possible");
      expect(on.length).toBeGreaterThan(off.length);
    });
  }
});

describe("determinism", () => {
  it("same graph → same bytes, whatever the object key order or copy", () => {
    for (const format of GRAPH_FORMATS) {
      for (const uncertainty of [false, true]) {
        const a = serializeGraph(tableScene(), { format, uncertainty });
        const b = serializeGraph(JSON.parse(JSON.stringify(tableScene())), { format, uncertainty });
        expect(b).toBe(a);
      }
    }
    const g1 = graph([node({ id: "n0", label: "mug", centre: [0, 0, 0], extent: [1, 1, 1], votes: { mug: 0.5, cup: 0.5 } })], [], {
      position: [0, 0, 1],
      yaw: 0,
      pitch: 0,
    });
    const g2 = graph([node({ id: "n0", label: "mug", centre: [0, 0, 0], extent: [1, 1, 1], votes: { cup: 0.5, mug: 0.5 } })], [], {
      position: [0, 0, 1],
      yaw: 0,
      pitch: 0,
    });
    expect(serializeGraph(g2, { format: "json", uncertainty: true })).toBe(serializeGraph(g1, { format: "json", uncertainty: true }));
  });

  it("handles an empty graph", () => {
    const g = graph([], [], { position: [0, 0, 1], yaw: 0, pitch: 0 });
    expect(serializeGraph(g, { format: "json", uncertainty: false })).toContain("Objects (JSON list):\n[]");
    expect(serializeGraph(g, { format: "text", uncertainty: false })).toContain("Objects:\n(none)");
    expect(serializeGraph(g, { format: "cogmap", uncertainty: false })).toContain("Map (JSON: category → [row, col] of each instance):\n{}");
  });
});
