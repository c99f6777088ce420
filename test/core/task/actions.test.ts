/** The agent's action text (issue 46): camera moves, stop, and the hands in our form and ESI's phrasings. */
import { describe, expect, it } from "vitest";
import { actionText, parseAgentAction } from "../../../core/task/actions.js";

const ok = (text: string, v: "camera" | "all" = "all") => {
  const p = parseAgentAction(text, v);
  if ("error" in p) throw new Error(p.error);
  return p.action;
};
const err = (text: string, v: "camera" | "all" = "all") => {
  const p = parseAgentAction(text, v);
  return "error" in p ? p.error : null;
};

describe("parseAgentAction", () => {
  it("reads camera moves and stop in any case and spacing", () => {
    expect(ok("move_forward")).toEqual({ kind: "camera", name: "move_forward" });
    expect(ok("Turn Left", "camera")).toEqual({ kind: "camera", name: "turn_left" });
    expect(ok(" stop ")).toEqual({ kind: "stop" });
  });

  it("reads manipulations written as calls, with node ids, names and instance ids", () => {
    expect(ok("pick_up(n3)")).toEqual({ kind: "hands", name: "pick_up", objects: ["n3"] });
    expect(ok('put_on("the red mug", table)')).toEqual({ kind: "hands", name: "put_on", objects: ["red mug", "table"] });
    expect(ok("open(#57)")).toEqual({ kind: "hands", name: "open", objects: ["#57"] });
    expect(ok("Put Inside(ball, grey packing box)")).toEqual({ kind: "hands", name: "put_inside", objects: ["ball", "grey packing box"] });
  });

  it("reads ESI's released phrasings", () => {
    expect(ok("pick up the red mug")).toEqual({ kind: "hands", name: "pick_up", objects: ["red mug"] });
    expect(ok("place mug on top of the wooden box")).toEqual({ kind: "hands", name: "put_on", objects: ["mug", "wooden box"] });
    expect(ok("put back mug")).toEqual({ kind: "hands", name: "put_back", objects: ["mug"] });
    expect(ok("put the ball into the toy box")).toEqual({ kind: "hands", name: "put_inside", objects: ["ball", "toy box"] });
    expect(ok("open the toy box")).toEqual({ kind: "hands", name: "open", objects: ["toy box"] });
  });

  it("says what is wrong: unknown, wrong arity, outside the vocabulary, objects on a camera move", () => {
    expect(err("jump")).toMatch(/^"jump" is not one of the actions \(move_forward, .*pick_up.*, stop\)$/);
    expect(err("put_on(mug)")).toBe("put_on names two objects: put_on(X, Y), got 1");
    expect(err("open(a, b)")).toBe("open names one object: open(X), got 2");
    expect(err("pick_up")).toBe("pick_up needs its objects: pick_up(X)");
    expect(err("pick_up(mug)", "camera")).toBe("pick_up is not available: this run's actions are the camera's only (--actions camera)");
    expect(err("pick up mug", "camera")).toMatch(/not available/);
    expect(err("move_forward(mug)")).toBe("move_forward takes no objects");
    expect(err("")).toBe("no action was given");
  });

  it("writes the canonical text it reads back", () => {
    for (const t of ["move_up", "stop", "put_on(red mug, table)", "open(#57)"]) expect(actionText(ok(t))).toBe(t);
  });
});
