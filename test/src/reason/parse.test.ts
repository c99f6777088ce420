import { describe, expect, it } from "vitest";
import { parseIntegerAnswer } from "../../../src/reason/numbers.js";
import {
  answerMatchOf,
  normalizeAnswerText,
  orderingItems,
  parseAnswer,
  parseJsonLoose,
  readConfidence,
  stripReasoning,
  type AnswerQuestion,
} from "../../../src/reason/parse.js";

const yesNo: AnswerQuestion = { answer_format: "yes_no", options: ["yes", "no"] };
const choice: AnswerQuestion = { answer_format: "choice", options: ["the red mug", "the blue mug", "the bowl"] };
const cats: AnswerQuestion = { answer_format: "choice", options: ["tennis_ball", "basketball", "apple"] };
const count: AnswerQuestion = { answer_format: "integer", options: ["2", "3", "4", "5"] };
const order: AnswerQuestion = { answer_format: "ordering", options: ["box, mug, plate", "mug, box, plate", "plate, box, mug"] };
/** The same questions as a prompt with lettered options ("A. text") asks them. */
const lettered = (q: AnswerQuestion): AnswerQuestion => ({ ...q, optionLabels: "letters" });

describe("normalizeAnswerText", () => {
  it("folds case, whitespace, punctuation, underscores and articles", () => {
    expect(normalizeAnswerText("  The  Red   Mug. ")).toBe("red mug");
    expect(normalizeAnswerText("tennis_ball")).toBe("tennis ball");
    expect(normalizeAnswerText("Tennis-Ball!")).toBe("tennis ball");
    expect(normalizeAnswerText("an apple")).toBe("apple");
    expect(normalizeAnswerText("Ｆｕｌｌｗｉｄｔｈ")).toBe("fullwidth");
  });
});

describe("parseAnswer: JSON", () => {
  it("reads the strict form", () => {
    expect(parseAnswer('{"answer": "yes", "confidence": 0.8}', yesNo)).toEqual({
      status: "parsed",
      answer: "yes",
      optionIndex: 0,
      confidence: 0.8,
      method: "json",
      match: "exact",
    });
  });
  it("reads code fences, prose around and trailing prose", () => {
    const r = parseAnswer('Sure! Here it is:\n```json\n{"answer": "no", "confidence": 0.3}\n```\nHope that helps.', yesNo);
    expect(r).toMatchObject({ status: "parsed", answer: "no", confidence: 0.3, method: "json" });
  });
  it("reads single quotes, unquoted keys, trailing commas and Python literals", () => {
    expect(parseAnswer("{'answer': 'the bowl', 'confidence': 0.9,}", choice)).toMatchObject({ answer: "the bowl", confidence: 0.9 });
    expect(parseAnswer("{answer: True, confidence: .5}", yesNo)).toMatchObject({ answer: "yes", confidence: 0.5, match: "synonym" });
  });
  it("leaves a missing confidence undefined", () => {
    const r = parseAnswer('{"answer": "yes"}', yesNo);
    expect(r.status).toBe("parsed");
    expect(r).not.toHaveProperty("confidence");
  });
  it("reads confidence as a percentage and rejects nonsense", () => {
    expect(readConfidence(0.25)).toBe(0.25);
    expect(readConfidence("80%")).toBe(0.8);
    expect(readConfidence(85)).toBe(0.85);
    expect(readConfidence("0.4")).toBe(0.4);
    expect(readConfidence(-1)).toBeUndefined();
    expect(readConfidence(250)).toBeUndefined();
    expect(readConfidence("high")).toBeUndefined();
  });
  it("maps option letters in the answer field when the options were lettered", () => {
    for (const a of ["B", "(B)", "b", "B.", "B)", "B. the blue mug", "B: the blue mug", "Option B"]) {
      expect(parseAnswer(JSON.stringify({ answer: a }), lettered(choice)), a).toMatchObject({
        status: "parsed",
        answer: "the blue mug",
        optionIndex: 1,
        match: "letter",
        method: "json",
      });
    }
  });
  it("reads no letter when the options were not lettered", () => {
    for (const a of ["A", "(B)", "b", "B.", "Option C", "choice (a)"]) {
      expect(parseAnswer(JSON.stringify({ answer: a }), choice), a).toMatchObject({
        status: "unparsed",
        reason: expect.stringMatching(/matches none of the options; the options were not lettered/),
      });
    }
    expect(parseAnswer('{"answer": "A"}', choice)).toEqual({
      status: "unparsed",
      reason: 'JSON answer: "A" matches none of the options; the options were not lettered',
    });
    for (const q of [yesNo, count, order, { answer_format: "choice" as const, options: ["equilateral", "isosceles", "random"] }]) {
      expect(parseAnswer('{"answer": "A"}', q), q.options.join()).toMatchObject({ status: "unparsed", reason: expect.stringMatching(/not lettered/) });
    }
    // a letter followed by an option's text is read by the text
    expect(parseAnswer('{"answer": "B. the bowl"}', choice)).toMatchObject({ status: "parsed", answer: "the bowl" });
    // an option whose own text is a letter is matched by that text
    expect(parseAnswer('{"answer": "B"}', { answer_format: "choice", options: ["A", "B"] })).toMatchObject({ status: "parsed", answer: "B", match: "exact" });
  });
  it("maps option text with normalisation", () => {
    expect(parseAnswer('{"answer": "Blue mug"}', choice)).toMatchObject({ answer: "the blue mug", match: "normalized" });
    expect(parseAnswer('{"answer": "tennis ball"}', cats)).toMatchObject({ answer: "tennis_ball", match: "normalized" });
    expect(parseAnswer('{"answer": "Tennis Ball."}', cats)).toMatchObject({ answer: "tennis_ball" });
  });
  it("refuses a letter whose text names another option", () => {
    expect(parseAnswer('{"answer": "B. the red mug"}', lettered(choice))).toMatchObject({ status: "unparsed" });
  });
  it("refuses an out-of-range letter", () => {
    expect(parseAnswer('{"answer": "F"}', lettered(choice))).toMatchObject({ status: "unparsed", reason: expect.stringMatching(/out of range/) });
  });
  it("accepts yes/no synonyms", () => {
    for (const [a, want] of [
      ["Yes", "yes"],
      ["y", "yes"],
      ["true", "yes"],
      ["correct", "yes"],
      ["No.", "no"],
      ["n", "no"],
      ["FALSE", "no"],
      ["incorrect", "no"],
    ] as const) {
      expect(parseAnswer(JSON.stringify({ answer: a }), yesNo), a).toMatchObject({ status: "parsed", answer: want });
    }
    expect(parseAnswer('{"answer": false}', yesNo)).toMatchObject({ answer: "no", match: "synonym" });
    expect(parseAnswer('{"answer": "Yes, the mug is left of the bowl"}', yesNo)).toMatchObject({ answer: "yes" });
  });
  it("maps yes/no onto differently spelled options", () => {
    expect(parseAnswer('{"answer": "yes"}', { answer_format: "yes_no", options: ["Yes", "No"] })).toMatchObject({ answer: "Yes", match: "normalized" });
    expect(parseAnswer('{"answer": true}', { answer_format: "yes_no", options: ["Yes", "No"] })).toMatchObject({ answer: "Yes" });
  });
  it("reads integers as numbers, digit strings, number words and '3 objects'", () => {
    expect(parseAnswer('{"answer": 3, "confidence": 0.7}', count)).toMatchObject({ answer: "3", optionIndex: 1, match: "number", confidence: 0.7 });
    expect(parseAnswer('{"answer": "three"}', count)).toMatchObject({ answer: "3", optionIndex: 1 });
    expect(parseAnswer('{"answer": "3 objects"}', count)).toMatchObject({ answer: "3" });
    expect(parseAnswer('{"answer": 4.0}', count)).toMatchObject({ answer: "4" });
    expect(parseAnswer('{"answer": "C"}', lettered(count))).toMatchObject({ answer: "4", match: "letter" });
    // unlettered, a number is an option's value, never its position
    expect(parseAnswer('{"answer": 1}', count)).toMatchObject({ status: "parsed", answer: "1", match: "number" });
    expect(parseAnswer('{"answer": "C"}', count)).toMatchObject({ status: "unparsed" });
  });
  it("keeps an integer that is not an option, as its string", () => {
    expect(parseAnswer('{"answer": "twelve"}', count)).toEqual({ status: "parsed", answer: "12", method: "json", match: "number" });
    expect(parseAnswer('{"answer": 7}', { answer_format: "integer", options: [] })).toMatchObject({ answer: "7" });
  });
  it("refuses non-integers and several numbers for integer questions", () => {
    expect(parseAnswer('{"answer": 2.5}', count)).toMatchObject({ status: "unparsed", reason: expect.stringMatching(/not an integer/) });
    expect(parseAnswer('{"answer": "3 or 4"}', count)).toMatchObject({ status: "unparsed", reason: expect.stringMatching(/several numbers/) });
  });
  it("reads orderings as lists or strings", () => {
    expect(parseAnswer('{"answer": ["Mug", "box", "plate"]}', order)).toMatchObject({ answer: "mug, box, plate", optionIndex: 1, match: "ordering" });
    expect(parseAnswer('{"answer": "plate > box > mug"}', order)).toMatchObject({ answer: "plate, box, mug", match: "normalized" });
    expect(parseAnswer('{"answer": "plate -> the box -> mug"}', order)).toMatchObject({ answer: "plate, box, mug", match: "normalized" });
    expect(parseAnswer('{"answer": "1. plate\\n2. box\\n3. mug"}', order)).toMatchObject({ answer: "plate, box, mug", match: "ordering" });
    expect(parseAnswer('{"answer": "box, mug, plate"}', order)).toMatchObject({ answer: "box, mug, plate", match: "exact" });
    expect(parseAnswer('{"answer": "the box, then the mug, and the plate"}', order)).toMatchObject({ answer: "box, mug, plate" });
    expect(parseAnswer('{"answer": "A"}', lettered(order))).toMatchObject({ answer: "box, mug, plate", match: "letter" });
    expect(parseAnswer('{"answer": ["mug", "plate", "box"]}', order)).toMatchObject({ status: "unparsed" });
  });
  it("skips brace groups that are not JSON", () => {
    expect(parseAnswer('Consider the set {mug, bowl}. {"answer": "bowl"}', { answer_format: "choice", options: ["mug", "bowl"] })).toMatchObject({
      answer: "bowl",
      method: "json",
    });
    expect(parseAnswer('{"answer": "it {really} is yes"}', yesNo)).toMatchObject({ status: "unparsed" });
    expect(parseAnswer('{"Answer": "YES", "Confidence": "90%"}', yesNo)).toMatchObject({ answer: "yes", confidence: 0.9 });
  });
  it("finds an answer object nested one level down", () => {
    expect(parseAnswer('{"result": {"answer": "no", "confidence": 1}}', yesNo)).toMatchObject({ answer: "no", confidence: 1 });
  });
  it("accepts several JSON objects only when they agree", () => {
    expect(parseAnswer('{"answer": "yes"} ... so: {"answer": "Yes", "confidence": 0.6}', yesNo)).toMatchObject({ answer: "yes", confidence: 0.6 });
    expect(parseAnswer('{"answer": "yes"} wait, {"answer": "no"}', yesNo)).toMatchObject({ status: "unparsed", reason: expect.stringMatching(/disagree/) });
  });
  it("does not fall back to prose when the JSON answer fits no option", () => {
    const r = parseAnswer('The blue mug.\n{"answer": "the green cup", "confidence": 0.4}', choice);
    expect(r).toMatchObject({ status: "unparsed", confidence: 0.4 });
  });
  it("reports null and object answers", () => {
    expect(parseAnswer('{"answer": null}', yesNo)).toMatchObject({ status: "unparsed" });
    expect(parseAnswer('{"answer": {"x": 1}}', yesNo)).toMatchObject({ status: "unparsed" });
  });
});

describe("parseAnswer: rules on free text", () => {
  it("reads a bare option letter (lettered options) or text", () => {
    expect(parseAnswer("B", lettered(choice))).toMatchObject({ answer: "the blue mug", method: "rule-option", match: "letter" });
    expect(parseAnswer("(C)", lettered(choice))).toMatchObject({ answer: "the bowl", method: "rule-option" });
    expect(parseAnswer("B. the blue mug", lettered(choice))).toMatchObject({ answer: "the blue mug", method: "rule-option" });
    expect(parseAnswer("B", choice)).toMatchObject({ status: "unparsed", reason: expect.stringMatching(/not lettered/) });
    expect(parseAnswer("B. the blue mug", choice)).toMatchObject({ answer: "the blue mug", match: "contained" });
    expect(parseAnswer("the red mug", choice)).toMatchObject({ answer: "the red mug", method: "rule-text", match: "exact" });
    expect(parseAnswer("Red mug", choice)).toMatchObject({ answer: "the red mug", method: "rule-text", match: "normalized" });
    expect(parseAnswer("**Basketball**", cats)).toMatchObject({ answer: "basketball", method: "rule-text" });
  });
  it("reads 'answer: X' lines and \\boxed{}", () => {
    expect(parseAnswer("Looking at the views, the mug is hidden.\nAnswer: yes", yesNo)).toMatchObject({ answer: "yes", method: "rule-text" });
    expect(parseAnswer("The answer is B because it is closer.", lettered(choice))).toMatchObject({ answer: "the blue mug", method: "rule-option" });
    expect(parseAnswer("The answer is B because it is closer.", choice)).toMatchObject({ status: "unparsed" });
    expect(parseAnswer("I think it is 3. Final answer: 4", count)).toMatchObject({ answer: "4", method: "numeric" });
    expect(parseAnswer("so \\boxed{5}", count)).toMatchObject({ answer: "5", method: "numeric" });
    expect(parseAnswer('"answer": "no", "confidence": 0.2 (truncated', yesNo)).toMatchObject({ answer: "no", confidence: 0.2 });
  });
  it("reads a leading yes/no in prose", () => {
    expect(parseAnswer("Yes, the mug is to the left of the bowl.", yesNo)).toMatchObject({ answer: "yes", method: "rule-text", match: "synonym" });
    expect(parseAnswer("No. Confidence: 70%", yesNo)).toMatchObject({ answer: "no", confidence: 0.7 });
    expect(parseAnswer("No - the bowl is in front.", yesNo)).toMatchObject({ answer: "no" });
  });
  it("does not read 'no idea', 'yes and no' or hedges as answers", () => {
    for (const r of [
      "No idea",
      "no idea.",
      "Yes and no",
      "No, I cannot tell from these views.",
      "Yes, no, maybe",
      "Nope, hard to say",
      "Not really sure",
      "y? n?",
    ]) {
      expect(parseAnswer(r, yesNo), r).toMatchObject({ status: "unparsed" });
    }
  });
  it("reads counts in prose only when unambiguous", () => {
    expect(parseAnswer("There are three mugs.", count)).toMatchObject({ answer: "3", method: "numeric" });
    expect(parseAnswer("3", count)).toMatchObject({ answer: "3", method: "numeric" });
    expect(parseAnswer("I see 2 on the left and 3 on the right.", count)).toMatchObject({ status: "unparsed" });
    expect(parseAnswer("There are 4 mugs. Confidence: 0.8", count)).toMatchObject({ answer: "4", confidence: 0.8 });
  });
  it("reads exactly one option mentioned in a short reply", () => {
    expect(parseAnswer("It is the bowl.", choice)).toMatchObject({ answer: "the bowl", match: "contained", method: "rule-text" });
    expect(parseAnswer("The red mug is closer.", choice)).toMatchObject({ answer: "the red mug", match: "contained" });
  });
  it("does not count an option found only inside a longer one", () => {
    const q: AnswerQuestion = { answer_format: "choice", options: ["mug", "red mug", "bowl"] };
    expect(parseAnswer("probably the red mug", q)).toMatchObject({ answer: "red mug", match: "contained" });
    expect(parseAnswer("the red mug, or the plain mug", q)).toMatchObject({ status: "unparsed" });
  });
  it("reads a letter marked in prose, only when the options were lettered", () => {
    const reply = "After checking every view I would go with option C here, since it sits on the table.";
    expect(parseAnswer(reply, lettered(choice))).toMatchObject({ answer: "the bowl", method: "rule-option" });
    expect(parseAnswer(reply, choice)).toMatchObject({ status: "unparsed" });
  });
  it("never guesses", () => {
    expect(parseAnswer("The red mug is closer than the blue mug.", choice)).toMatchObject({ status: "unparsed" });
    expect(parseAnswer("I cannot tell from these images.", yesNo)).toMatchObject({ status: "unparsed" });
    expect(parseAnswer("I need to look more carefully at the scene.", count)).toMatchObject({ status: "unparsed" });
    expect(parseAnswer("Either (A) or (B).", lettered(choice))).toMatchObject({ status: "unparsed" });
    expect(parseAnswer("Answer: yes. Final answer: no", yesNo)).toMatchObject({ answer: "no" }); // final wins
    expect(parseAnswer("Answer: yes\nAnswer: no", yesNo)).toMatchObject({ status: "unparsed" });
  });
  it("reports an empty reply", () => {
    expect(parseAnswer("   ", yesNo)).toEqual({ status: "unparsed", reason: "empty reply" });
  });
  it("ignores <think> reasoning", () => {
    expect(parseAnswer('<think>maybe {"answer": "no"}</think>{"answer": "yes"}', yesNo)).toMatchObject({ answer: "yes" });
    expect(stripReasoning("reasoning…</think> final")).toBe(" final");
    expect(stripReasoning("a <think>never closed")).toBe("a ");
  });
});

describe("answerMatchOf: what a record says of a match", () => {
  it("is text for an option's own text or value, letter for a letter, fuzzy for tolerant rules", () => {
    expect((["exact", "normalized", "number", "ordering", "structured"] as const).map(answerMatchOf)).toEqual(["text", "text", "text", "text", "text"]);
    expect(answerMatchOf("letter")).toBe("letter");
    expect(answerMatchOf("synonym")).toBe("fuzzy");
    expect(answerMatchOf("contained")).toBe("fuzzy");
  });
});

describe("loose JSON and helpers", () => {
  it("parses what models write", () => {
    expect(parseJsonLoose("{'a': 'it\\'s', b: [1, 2,], c: None}")).toEqual({ a: "it's", b: [1, 2], c: null });
    expect(parseJsonLoose("{a: }")).toBeUndefined();
  });
  it("splits orderings", () => {
    expect(orderingItems("1. The box\n2. the mug\n3. plate")).toEqual(["box", "mug", "plate"]);
    expect(orderingItems("box -> mug → plate")).toEqual(["box", "mug", "plate"]);
    expect(orderingItems("First the plate, then the box, and finally the mug")).toEqual(["plate", "box", "mug"]);
  });
});

describe("numbers", () => {
  it("parses number words", () => {
    expect(parseIntegerAnswer("three")).toEqual({ value: 3 });
    expect(parseIntegerAnswer("twelve")).toEqual({ value: 12 });
    expect(parseIntegerAnswer("twenty-one")).toEqual({ value: 21 });
    expect(parseIntegerAnswer("one hundred and five")).toEqual({ value: 105 });
    expect(parseIntegerAnswer("a hundred")).toEqual({ value: 100 });
    // a run of number words that is not one number is no number at all
    expect(parseIntegerAnswer("twenty zero")).toEqual({ error: 'no number in "twenty zero"' });
    expect(parseIntegerAnswer("mug")).toEqual({ error: 'no number in "mug"' });
  });
  it("finds digits and words in order", () => {
    // the error of several numbers lists them in order of appearance
    expect(parseIntegerAnswer("1,200 mugs, -2 cups, 3-4 bowls and seven plates")).toEqual({ error: expect.stringMatching(/\(1200, -2, 3, 4, 7\)$/) });
    expect(parseIntegerAnswer("1,2,3")).toEqual({ error: expect.stringMatching(/\(1, 2, 3\)$/) });
    expect(parseIntegerAnswer("3.5 m")).toEqual({ error: "3.5 is not an integer" });
  });
  it("reads one integer or says why not", () => {
    expect(parseIntegerAnswer("3 objects")).toEqual({ value: 3 });
    expect(parseIntegerAnswer("Three.")).toEqual({ value: 3 });
    expect(parseIntegerAnswer("none")).toEqual({ value: 0 });
    expect(parseIntegerAnswer("3 (three)")).toEqual({ value: 3 });
    expect(parseIntegerAnswer("3.5")).toMatchObject({ error: expect.stringMatching(/not an integer/) });
    expect(parseIntegerAnswer("2 or 3")).toMatchObject({ error: expect.stringMatching(/several/) });
    expect(parseIntegerAnswer("many")).toMatchObject({ error: expect.stringMatching(/no number/) });
  });
});
