/**
 * src/reason/structured.ts and src/eval/score.ts on the structured answers of the released ESI-Bench sample
 * (fixtures/esi-bench, imported by bridge/esibench): replies are read into the answer's form or refused as
 * unparsed, never partly guessed, and scored as ESI's runner scores them (exact match of the whole; Stacking:
 * any accepted order); the Structural Enclosure program answers only what a graph of seen surfaces allows.
 */
import { describe, expect, it } from "vitest";
import { importRecords } from "../../../bridge/esibench/importer.js";
import { TaskRecordSchema } from "../../../core/task/schema.js";
import { scoreAnswer } from "../../../src/eval/score.js";
import { repromptText } from "../../../src/prompt/reminder.js";
import { answerTemplateOf } from "../../helpers/prompts.js";
import { tableScene } from "../prompt/graphs.js";
import { decide } from "../../../src/reason/symbolic.js";
import type { Query } from "../../../src/reason/query.js";
import { parseReply } from "../../../src/reason/structured.js";
import { answerWithReprompt } from "../../../src/reason/protocol.js";
import type { SceneGraph } from "../../../scenegraph/types.js";
import { SAMPLE } from "../../bridge/esibench/esibenchHelpers.js";

const res = importRecords(SAMPLE);
const task = (id: string) => TaskRecordSchema.parse(res.imported.find((x) => x.record.raw.id === id)!.task);
const stacking = task("1740"),
  stackingOne = task("1738"),
  containment = task("2075"),
  turns = task("0143"),
  regions = task("0166"),
  order = task("0005");
const score = (reply: string, t: ReturnType<typeof task>) => scoreAnswer(parseReply(reply, t) as never, t);

describe("structured answers of the sample records", () => {
  it("the sample has all four structured formats", () => {
    const kinds = new Set(res.imported.map((x) => x.task?.answer_spec?.kind).filter(Boolean));
    expect([...kinds].sort()).toEqual(["any_ordering", "assignment", "parts", "step_sequence"]);
  });

  it("Stacking: any of the accepted orders is correct, another permutation is wrong, an incomplete one unparsed", () => {
    expect(score('{"answer": ["hummus_box", "can_of_coffee", "jar_of_bath_salt"], "confidence": 0.7}', stacking)).toEqual({
      scored: true,
      correct: true,
      structured: { value: { kind: "any_ordering", order: ["hummus_box", "can_of_coffee", "jar_of_bath_salt"] }, parts_correct: null, parts_total: null },
    });
    expect(score("Answer: jar of bath salt, hummus box, can of coffee", stacking)).toMatchObject({ scored: true, correct: true });
    expect(score('{"answer": ["can_of_coffee", "hummus_box", "jar_of_bath_salt"]}', stacking)).toMatchObject({ scored: true, correct: false });
    expect(score('{"answer": ["coffee_bean_jar", "refried_beans_can", "outline_tray"]}', stackingOne)).toMatchObject({ correct: true });
    expect(parseReply('{"answer": ["hummus_box", "can_of_coffee"]}', stacking)).toMatchObject({
      status: "unparsed",
      reason: expect.stringContaining("2 item(s)"),
    });
    expect(parseReply('{"answer": ["hummus_box", "hummus_box", "can_of_coffee"]}', stacking)).toMatchObject({
      status: "unparsed",
      reason: expect.stringContaining("twice"),
    });
  });

  it("Rigid Containment: an object, a keyed list or the container alone for one item", () => {
    for (const reply of [
      '{"answer": {"soap bottle": "medium container"}}',
      '{"answer": [{"_key": "soap bottle", "value": "medium container"}]}',
      '{"answer": "the medium container", "confidence": 0.6}',
    ])
      expect(score(reply, containment), reply).toMatchObject({ scored: true, correct: true, structured: { parts_correct: 1, parts_total: 1 } });
    expect(score('{"answer": {"soap bottle": "small container"}}', containment)).toMatchObject({ correct: false, structured: { parts_correct: 0 } });
    expect(parseReply('{"answer": {"soap bottle": "large container"}}', containment).status).toBe("unparsed");
  });

  it("Long-Term Navigation: one answer per blank from its own options; a wrong count of blanks is unparsed", () => {
    expect(score('{"answer": ["turn right", "turn left"], "confidence": 0.5}', turns)).toMatchObject({
      correct: true,
      structured: { parts_correct: 2, parts_total: 2 },
    });
    expect(score("turn right | turn back", turns)).toMatchObject({ correct: false, structured: { parts_correct: 1, parts_total: 2 } });
    expect(parseReply('{"answer": ["turn right"]}', turns)).toMatchObject({
      status: "unparsed",
      reason: expect.stringContaining("1 step answer(s) for 2 blank(s)"),
    });
    expect(score('{"answer": ["living_room_1", "garden_0", "storage_room_1"]}', regions)).toMatchObject({ correct: true });
    // garden_0 is not an option of blank 1
    expect(parseReply('{"answer": ["garden_0", "garden_0", "storage_room_1"]}', regions).status).toBe("unparsed");
  });

  it("Action Order Inference: both parts must match (ESI), part keys as ESI writes them too", () => {
    expect(score('{"answer": {"A": "below", "C": "below"}}', order)).toMatchObject({ correct: true, structured: { parts_correct: 2, parts_total: 2 } });
    expect(score('{"answer": {"answer_A": "below", "answer_C": "above"}}', order)).toMatchObject({ correct: false, structured: { parts_correct: 1 } });
    expect(parseReply('{"answer": {"A": "below"}}', order)).toMatchObject({ status: "unparsed", reason: expect.stringContaining("part C is missing") });
    expect(parseReply('{"answer": "below"}', order).status).toBe("unparsed");
  });

  it("several disagreeing JSON answers, an empty reply and a reasoning-only reply are unparsed, never scored", () => {
    expect(parseReply('{"answer": ["turn right", "turn left"]} or {"answer": ["turn left", "turn left"]}', turns)).toMatchObject({
      status: "unparsed",
      reason: expect.stringContaining("disagree"),
    });
    expect(parseReply("", turns).status).toBe("unparsed");
    expect(scoreAnswer({ status: "unparsed" } as never, turns)).toEqual({ scored: false, status: "unparsed" });
  });

  it("the prompt and the re-prompt reminder state the answer's shape from the options, not the answer", () => {
    const p = answerTemplateOf(order, tableScene());
    expect(p).toContain('Part A: one of "below", "above"');
    expect(p).toContain('Example of the form: {"answer": {"A":"below","C":"below"}, "confidence": 0.8}');
    expect(repromptText("", turns)).toContain("a JSON list of 2 answer(s), one per blank");
  });
});

describe("the answer protocol on a structured question", () => {
  it("an unreadable first reply is re-prompted with the shape reminder; the second is parsed", async () => {
    const asked: string[] = [];
    const replies = ['{"answer": "turn right"}', '{"answer": ["turn right", "turn left"], "confidence": 0.9}'];
    const out = await answerWithReprompt(async (t) => (asked.push(t), replies[asked.length - 1]!), "PROMPT", turns);
    expect(out).toMatchObject({ status: "parsed", reprompted: true, parsed: { answer: "turn right | turn left", confidence: 0.9, match: "structured" } });
    expect(asked[1]).toContain("a JSON list of 2 answer(s)");
  });
  it("two unreadable replies are invalid, never scored", async () => {
    const out = await answerWithReprompt(async () => '{"answer": {"A": "below"}}', "PROMPT", order);
    expect(out).toMatchObject({ status: "invalid", reason: expect.stringContaining("part C is missing") });
  });
});

describe("Structural Enclosure program", () => {
  const q = (options: string[]): Query => ({
    subcategory: "structural_enclosure",
    question: "how many?",
    answer_format: "integer",
    options,
    referents: [],
    countCategory: "club_sandwich",
    viewpoint: { position: [0, 0, 1], yaw: 0, pitch: 0 },
  });
  // the program reads node labels and boxes: node i stands 1 m along x from node i - 1, 0.3 m cubes on the floor
  const graph = (labels: string[]) =>
    ({
      nodes: labels.map((label, i) => ({ id: `n${i}`, label, box: { centre: [i, 0, 0.15], extent: [0.3, 0.3, 0.3], yaw: 0 } })),
      relations: [],
    }) as unknown as SceneGraph;

  it("answers the fill prior's expected count over closed microwaves at the prior's confidence (the sample's 5-microwave record)", () => {
    // 5 closed, nothing seen: 2.5 expected, options 1 and 4 equally near (the lower wins), P(1 of 5) = 5/32
    expect(decide(graph(["microwave", "microwave", "microwave", "microwave", "microwave"]), q(["0", "1", "4", "5"]))).toMatchObject({
      answer: "1",
      confidence: 0.156,
    });
  });
  it("adds the prior over the closed boxes to the seen count, and counts plainly without enclosures", () => {
    expect(decide(graph(["club_sandwich", "club_sandwich", "microwave"]), q(["1", "2", "4", "5"]))).toMatchObject({ answer: "2", confidence: 0.5 });
    expect(decide(graph(["club_sandwich", "club_sandwich", "club_sandwich"]), q(["1", "2", "3", "4"]))).toMatchObject({ answer: "3", confidence: 1 });
  });
  it("reads a box as closed only while a lid node rests on it, and a box with a target seen inside as known", () => {
    const node = (id: string, label: string, centre: number[], extent: number[]) => ({ id, label, box: { centre, extent, yaw: 0 } });
    const box = (i: number) => node(`b${i}`, "packing_box", [i, 0, 0.15], [0.4, 0.3, 0.3]);
    const lidOn = (i: number) => node(`l${i}`, "box_lid", [i, 0, 0.315], [0.41, 0.31, 0.03]);
    const lidBeside = (i: number) => node(`l${i}`, "box_lid", [i, 0.5, 0.015], [0.41, 0.31, 0.03]);
    const apple = (i: number) => node(`a${i}`, "apple", [i, 0, 0.09], [0.08, 0.08, 0.08]);
    const g = (nodes: unknown[]) => ({ nodes, relations: [] }) as unknown as SceneGraph;
    const ask = { ...q(["0", "1", "2", "3"]), countCategory: "apple" };
    // three boxes open (lids beside them), one apple seen inside: the count
    expect(decide(g([box(0), box(1), box(2), lidBeside(0), lidBeside(1), lidBeside(2), apple(1)]), ask)).toMatchObject({ answer: "1", confidence: 1 });
    // two of them closed: 1 seen + 0.5 x 2 -> 2, P(1 of 2) = 0.5
    expect(decide(g([box(0), box(1), box(2), lidOn(0), lidOn(2), lidBeside(1), apple(1)]), ask)).toMatchObject({ answer: "2", confidence: 0.5 });
    // a closed box whose apple the graph holds adds nothing unknown
    expect(decide(g([box(0), lidOn(0), apple(0)]), ask)).toMatchObject({ answer: "1", confidence: 1 });
  });
});
