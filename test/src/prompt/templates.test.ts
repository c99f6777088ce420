import { describe, expect, it } from "vitest";
import type { Task } from "../../../core/task/schema.js";
import { parseAnswer } from "../../../src/reason/parse.js";
import { repromptText } from "../../../src/prompt/reminder.js";
import { serializeGraph } from "../../../src/prompt/serialize.js";
import { buildPrompt, PROMPT_VERSION, promptRecord } from "../../../src/prompt/templates.js";
import type { OptionLabels } from "../../../src/prompt/formats.js";
import { answerTemplateOf } from "../../helpers/prompts.js";
import { InputError } from "../../../core/errors.js";
import { bundleOf, smallTask } from "./bundles.js";
import { selectViews } from "../../../src/prompt/viewSelection.js";
import { tableScene } from "./graphs.js";
import { PromptFormatSchema } from "../../../src/prompt/formats.js";

/** The prompt options a run takes when none are given. */
const PROMPT_DEFAULTS = PromptFormatSchema.parse({});

type Q = Pick<Task, "question" | "answer_format" | "options" | "subcategory">;
const yesNo: Q = { question: "Is the mug on the table?", answer_format: "yes_no", options: ["yes", "no"], subcategory: "physical_contact" };
const option: Q = {
  question: "Which is closer to the armchair: the mug or the table?",
  answer_format: "choice",
  options: ["the mug", "the table"],
  subcategory: "spatial_distance",
};
const category: Q = {
  question: "What is the object partly hidden behind the box?",
  answer_format: "choice",
  options: ["can", "vase", "candle", "bottle"],
  subcategory: "partial_occlusion",
};
const integer: Q = {
  question: "How many mugs are there in the room?",
  answer_format: "integer",
  options: ["1", "2", "3", "4"],
  subcategory: "counting_with_occlusion",
};
const ordering: Q = {
  question: "In which order were the mug, the vase and the lamp moved?",
  answer_format: "ordering",
  options: ["mug, vase, lamp", "lamp, vase, mug", "vase, mug, lamp"],
  subcategory: "action_order_inference",
};

/** The answer template the prompt of a question ends with. */
const template = (q: Q, optionLabels?: OptionLabels) => answerTemplateOf({ ...smallTask(), ...q }, tableScene(), optionLabels);

describe("answer templates", () => {
  it("chooses one template per answer kind", () => {
    const kind = (q: Q) => buildPrompt({ task: { ...smallTask(), ...q }, graph: tableScene() }, PROMPT_DEFAULTS).template;
    expect([yesNo, option, category, integer, ordering].map(kind)).toEqual(["yes_no", "option", "category", "integer", "ordering"]);
  });

  it("yes/no", () => {
    const s = template(yesNo);
    expect(s).toBe(
      [
        "Question: Is the mug on the table?",
        'Answer "yes" or "no".',
        "Reply with only a JSON object and nothing else, of the form",
        '{"answer": "yes" or "no", "confidence": <a number from 0 to 1>}',
        "`confidence` is your probability, from 0 to 1, that your answer is correct.",
      ].join("\n"),
    );
  });

  it("option", () => {
    const s = template(option);
    expect(s).toContain("Options:\n- the mug\n- the table\nAnswer with exactly one of the options, copied as written.");
    expect(s).toContain('{"answer": "<one of the options>", "confidence": <a number from 0 to 1>}');
  });

  it("category", () => {
    const s = template(category);
    expect(s).toContain("Options (object categories):\n- can\n- vase\n- candle\n- bottle\nAnswer with the object's category");
    expect(s).toContain('{"answer": "<one of the categories>", "confidence": <a number from 0 to 1>}');
  });

  it("integer with options, and without", () => {
    const s = template(integer);
    expect(s).toContain("Options: 1, 2, 3, 4\nAnswer with one of the options, an integer written with digits.");
    expect(s).toContain('{"answer": <integer>, "confidence": <a number from 0 to 1>}');
    expect(template({ ...integer, options: [] })).toContain("Question: How many mugs are there in the room?\nAnswer with an integer written with digits.\n");
  });

  it("ordering", () => {
    const s = template(ordering);
    expect(s).toContain(
      "Options (each is a complete order, first to last):\n- mug, vase, lamp\n- lamp, vase, mug\n- vase, mug, lamp\nAnswer with exactly one of the options, copied as written.",
    );
  });

  it("lists the yes/no words in the options' own order (a rotation is a prompt of its own)", () => {
    expect(template({ ...yesNo, options: ["no", "yes"] })).toContain(
      'Answer "no" or "yes".\nReply with only a JSON object and nothing else, of the form\n{"answer": "no" or "yes",',
    );
  });

  it("letters every option list with --option-labels letters, and a letter reply parses only then", () => {
    expect(template(option, "letters")).toContain(
      'Options:\nA. the mug\nB. the table\nAnswer with the letter of exactly one of the options.\nReply with only a JSON object and nothing else, of the form\n{"answer": "<the letter of one option>"',
    );
    expect(template(category, "letters")).toContain(
      "Options (object categories):\nA. can\nB. vase\nC. candle\nD. bottle\nAnswer with the object's category: the letter of exactly one of the options.",
    );
    expect(template(integer, "letters")).toContain("Options:\nA. 1\nB. 2\nC. 3\nD. 4\nAnswer with the letter of exactly one of the options.");
    expect(template(ordering, "letters")).toContain("first to last):\nA. mug, vase, lamp\nB. lamp, vase, mug\nC. vase, mug, lamp\n");
    expect(template(yesNo, "letters")).toContain("Options:\nA. yes\nB. no\nAnswer with the letter of exactly one of the options.");
    // an integer question without options has nothing to letter
    expect(template({ ...integer, options: [] }, "letters")).toBe(template({ ...integer, options: [] }));
    expect(template(option, "none")).toBe(template(option));
    const task = {
      ...smallTask(),
      answer_format: "choice" as const,
      options: ["the mug", "the table"],
      answer: "the table",
      subcategory: "spatial_distance" as const,
    };
    const built = buildPrompt({ task, graph: tableScene(), optionLabels: "letters" }, PROMPT_DEFAULTS);
    expect(built.optionLabels).toBe("letters");
    expect(buildPrompt({ task, graph: tableScene() }, PROMPT_DEFAULTS)).not.toHaveProperty("optionLabels");
    expect(parseAnswer('{"answer": "B"}', { ...task, optionLabels: built.optionLabels })).toMatchObject({
      status: "parsed",
      answer: "the table",
      match: "letter",
    });
    expect(parseAnswer('{"answer": "B"}', task)).toMatchObject({ status: "unparsed" });
  });

  it("asks for the JSON form protocol.ts's reminder repeats, and replies of that form parse", () => {
    const replies: [Q, string, string][] = [
      [yesNo, '{"answer": "no", "confidence": 0.7}', "no"],
      [option, '{"answer": "the table", "confidence": 0.6}', "the table"],
      [category, '{"answer": "vase", "confidence": 0.55}', "vase"],
      [integer, '{"answer": 3, "confidence": 0.9}', "3"],
      [ordering, '{"answer": "lamp, vase, mug", "confidence": 0.4}', "lamp, vase, mug"],
    ];
    for (const [q, reply, answer] of replies) {
      expect(template(q)).toContain('"confidence": <a number from 0 to 1>}');
      expect(repromptText("", q)).toContain('"confidence": <a number from 0 to 1>}');
      expect(parseAnswer(reply, q)).toMatchObject({ status: "parsed", answer, method: "json" });
    }
  });
});

describe("buildPrompt: 3D + LLM", () => {
  const task = smallTask();
  const g = tableScene();

  it("sends the serialized graph, then the question, and no images", () => {
    const p = buildPrompt({ task, graph: g }, PROMPT_DEFAULTS);
    expect(p).toMatchObject({ version: PROMPT_VERSION, arm: "3d-llm", template: "option", format: "relations", uncertainty: false });
    // the 3D arm's system text: a scene described in numbers, no images
    expect(p.system).toMatch(/^You answer questions about a room .*\nYou do not see the images\. Instead you get a description of the scene/);
    expect(p.images).toBeUndefined();
    const scene = serializeGraph(g, { format: "relations", uncertainty: false });
    expect(p.user).toBe(`${scene}\n\n${template(task)}`);
    expect(p.system).not.toMatch(/image shows|pixel/);
  });

  it("honours format (the options'), uncertainty (the input's first) and cogmap size", () => {
    expect(buildPrompt({ task, graph: g }, { format: "json" }).format).toBe("json");
    expect(buildPrompt({ task, graph: g, uncertainty: true }, { format: "json", uncertainty: false }).uncertainty).toBe(true);
    const c = buildPrompt({ task, graph: g, uncertainty: true }, { format: "cogmap", cogmapSize: 20 });
    expect(c.user).toContain("The map is a 20 × 20 grid");
    expect(c.user).toContain("Evidence and uncertainty:");
    expect(c.cogmapSize).toBe(20);
  });

  it("is reproducible: same input, same text and digest; any change, another digest", () => {
    const a = buildPrompt({ task, graph: g }, { format: "json" });
    const b = buildPrompt({ task: JSON.parse(JSON.stringify(task)) as Task, graph: JSON.parse(JSON.stringify(g)) }, { format: "json" });
    expect(b.user).toBe(a.user);
    expect(promptRecord(b)).toBe(promptRecord(a));
    expect(promptRecord(buildPrompt({ task, graph: g, uncertainty: true }, { format: "json" }))).not.toBe(promptRecord(a));
  });

  it("records system and user text in one splittable record", () => {
    const p = buildPrompt({ task, graph: g }, { format: "text" });
    const rec = promptRecord(p);
    expect(rec).toBe(`=== system ===\n${p.system}\n=== user ===\n${p.user}`);
    // our system text holds no marker, so the record splits back at its first user marker
    expect(rec.indexOf("\n=== user ===\n")).toBe("=== system ===\n".length + p.system.length);
  });

  it("fails with an input error (exit code 2) naming what is missing", () => {
    expect(() => buildPrompt({ task }, PROMPT_DEFAULTS)).toThrow(InputError);
    expect(() => buildPrompt({ task }, PROMPT_DEFAULTS)).toThrow(/needs a scene graph/);
    expect(() => buildPrompt({ task, graph: g }, { format: "cogmap", cogmapSize: 99 })).toThrow(/cogmapSize/);
  });
});

describe("buildPrompt: 2D VLM", () => {
  const task = smallTask();
  const bundle = bundleOf(task, "gt");

  it("sends images with their view and actions, the camera conventions, and no graph", () => {
    const p = buildPrompt({ task, graph: tableScene(), bundle, images: "multi", maxImages: 3 }, PROMPT_DEFAULTS);
    expect(p.arm).toBe("2d-vlm");
    expect(p.images).toHaveLength(3);
    // evenly spaced, the first and the last view included (selectViews' own tests check the spacing)
    expect(p.views!.map((v) => v.view)).toEqual(selectViews(bundle.views.length, "multi", 3));
    expect(p.views!.map((v) => v.view)).toEqual([0, expect.any(Number), bundle.views.length - 1]);
    expect(p.user).not.toContain("Scene graph");
    const middle = p.views![1]!.view;
    expect(p.user.startsWith(`3 images follow this text, in this order (3 of the ${bundle.views.length} views taken`)).toBe(true);
    expect(p.user).toContain("- image 1: view 0, your initial view");
    expect(p.user).toContain(
      `- image 2: view ${middle}, after ${bundle.views
        .slice(1, middle + 1)
        .map((v) => v.action)
        .join(", ")}`,
    );
    expect(p.user.endsWith(template(task))).toBe(true);
    expect(p.system).toContain("each image is a 96 × 72 pixel pinhole photograph with a horizontal field of view of 70°");
    expect(p.system).toContain(`camera ${task.agent_initial.position[2].toFixed(2)} m above the floor`);
    expect(p.system).toContain("move_forward, move_backward, move_left and move_right move the camera 0.25 m");
    expect(p.system).toContain("turn_left and turn_right rotate it 15°");
    expect(p.system).toContain("as seen from your initial view (view 0)");
    const rec = promptRecord(p);
    expect(rec.startsWith(`=== system ===\n${p.system}\n=== user ===\n${p.user}\n=== images ===\n`)).toBe(true);
    expect(rec).toMatch(new RegExp(`\\n=== images ===\\nimage 1: view 0, image/png, sha256 [0-9a-f]{64}\\nimage 2: view ${middle}, `));
  });

  it("single: one image, no motion conventions", () => {
    const p = buildPrompt({ task, bundle, images: "single" }, PROMPT_DEFAULTS);
    expect(p.images).toHaveLength(1);
    expect(p.system).not.toContain("move_forward");
    expect(p.user.startsWith("One image follows this text: your initial view (view 0).\n\nQuestion: ")).toBe(true);
  });

  it("fails without a bundle, or with maxImages over 30", () => {
    expect(() => buildPrompt({ task, images: "multi" }, PROMPT_DEFAULTS)).toThrow(/need a frame bundle/);
    expect(() => buildPrompt({ task, bundle, images: "multi", maxImages: 31 }, PROMPT_DEFAULTS)).toThrow(/1 to 30/);
  });
});
