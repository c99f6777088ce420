/** Node ids in the active memory: a moved object keeps its id, the others are numbered by node order around the pinned ids. */
import { describe, expect, it } from "vitest";
import { NodeIds } from "../../scenegraph/nodeIds.js";

describe("node ids after a move", () => {
  it("with nothing pinned, the nodes are n0, n1, ... in node order (as a batch build numbers them)", () => {
    expect(new NodeIds().ids([undefined, undefined, undefined])).toEqual(["n0", "n1", "n2"]);
  });

  it("a moved node keeps its id wherever it now comes in node order; the others keep theirs", () => {
    // before: A n0, X n1, B n2, C n3; X moved past C
    const ids = new NodeIds();
    ids.pin("n1");
    expect(ids.ids([undefined, undefined, undefined, "n1"])).toEqual(["n0", "n2", "n3", "n1"]);
  });

  it("a pinned id no node shows this step stays reserved; an object split in two keeps its id on the first", () => {
    const ids = new NodeIds();
    ids.pin("n0");
    ids.pin("n2");
    expect(ids.ids([undefined, undefined, undefined])).toEqual(["n1", "n3", "n4"]);
    expect(ids.ids(["n2", "n2", undefined])).toEqual(["n2", "n1", "n3"]);
    expect(ids.pinned).toEqual(["n0", "n2"]);
  });
});
