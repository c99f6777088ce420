/**
 * The command line's bad-input corpus (issue 13: the kinds of bad input a reliability review tried):
 * task files, bundles, config files, flags, graphs for `ask`, run directories. Every row runs the built CLI
 * in a fresh folder and asserts the exit code, that the message names the file and the field (or flag), that no
 * stack trace appears, and that nothing is left behind: the folder holds exactly what the row put there.
 * Together with the service's corpus (test/src/apps/service/badRequests.test.ts) this is the audit's table kept
 * in the suite.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { createDeflate } from "node:zlib";
import { pngChunk } from "../../../../core/bundle/pngChunk.js";
import { readBundle } from "../../../../core/bundle/io.js";
import { writeReplica, writeScannet, writeTum } from "../../../bridge/datasets/layouts.js";
import { startServer, type TestServer } from "../../llm/server.js";
import { CLI, esi3dAsync, REPO_ROOT } from "./helpers.js";

const FIXTURE_TASK = join(REPO_ROOT, "fixtures", "tasks", "geometric_configuration-000.json");
/** A stack frame as V8 prints it, or the name of a raw JS error: neither may reach a user. */
const LEAK = /\bat .*:\d+:\d+|\b(TypeError|ReferenceError|RangeError|SyntaxError):|Cannot read properties/;

type Json = Record<string, unknown>;
const task = (): Json => JSON.parse(readFileSync(FIXTURE_TASK, "utf8")) as Json;
const objs = (t: Json) => t.objects as Json[];

interface Case {
  name: string;
  /** files the row puts in its folder (path -> content); a function gets the folder to build anything else */
  files?: Record<string, string>;
  setup?: (dir: string) => void;
  args: (dir: string) => string[];
  code: number;
  /** what the message must name (the file, the field or flag) */
  mentions: RegExp[];
  env?: Record<string, string | undefined>;
  /** entries (relative to the row's folder) the row is meant to write: they must exist; nothing else may change */
  creates?: string[];
  /** what the output must not contain (e.g. a raw escape character) */
  absent?: RegExp[];
  /** further checks of the folder after the command */
  after?: (dir: string) => void;
  /** the child's peak resident memory must stay under this (MiB), measured by /usr/bin/time */
  maxRssMiB?: number;
}

const json = (v: unknown) => JSON.stringify(v);
const withTask = (edit: (t: Json) => void): string => {
  const t = task();
  edit(t);
  return json(t);
};
const render =
  (file = "task.json") =>
  (d: string) => ["render", "--tasks", join(d, file), "--paradigm", "single", "--out", join(d, "out")];
const runWith =
  (...extra: string[]) =>
  (d: string) => ["run", "--limit", "1", "--paradigm", "single", "--source", "gt", "--out", join(d, "r"), ...extra];
const cfgRun = (content: string): Pick<Case, "files" | "args"> => ({
  files: { "cfg.json": content },
  args: (d) => ["run", "--config", join(d, "cfg.json"), "--limit", "1", "--out", join(d, "r")],
});

let bundleDir = "";

const TASK_CASES: Case[] = [
  { name: "task file not JSON", files: { "task.json": "{not json" }, args: render(), code: 2, mentions: [/task\.json/, /not valid JSON/] },
  { name: "empty task file", files: { "task.json": "" }, args: render(), code: 2, mentions: [/task\.json/, /not valid JSON/] },
  { name: "task file with a BOM", files: { "task.json": "\uFEFF" + json(task()) }, args: render(), code: 2, mentions: [/task\.json/, /not valid JSON/] },
  { name: "task is null", files: { "task.json": "null" }, args: render(), code: 2, mentions: [/task\.json/, /invalid task record/] },
  { name: "task is an array", files: { "task.json": "[]" }, args: render(), code: 2, mentions: [/task\.json/, /invalid task record/] },
  { name: "task_id missing", files: { "task.json": withTask((t) => delete t.task_id) }, args: render(), code: 2, mentions: [/task\.json/, /task_id/] },
  { name: "task_id '..' (M2)", files: { "task.json": withTask((t) => (t.task_id = "..")) }, args: render(), code: 2, mentions: [/task\.json/, /task_id/] },
  { name: "task_id '.'", files: { "task.json": withTask((t) => (t.task_id = ".")) }, args: render(), code: 2, mentions: [/task\.json/, /task_id/] },
  {
    name: "task_id with a slash",
    files: { "task.json": withTask((t) => (t.task_id = "a/../../b")) },
    args: render(),
    code: 2,
    mentions: [/task\.json/, /task_id/],
  },
  { name: "task_id hidden ('.x')", files: { "task.json": withTask((t) => (t.task_id = ".x")) }, args: render(), code: 2, mentions: [/task\.json/, /task_id/] },
  {
    name: "task_id of 200 characters",
    files: { "task.json": withTask((t) => (t.task_id = "a".repeat(200))) },
    args: render(),
    code: 2,
    mentions: [/task\.json/, /task_id/],
  },
  {
    name: "wrong schema tag",
    files: { "task.json": withTask((t) => (t.schema = "esi3d-task/9")) },
    args: render(),
    code: 2,
    mentions: [/task\.json/, /schema/],
  },
  {
    name: "unknown subcategory",
    files: { "task.json": withTask((t) => (t.subcategory = "telepathy")) },
    args: render(),
    code: 2,
    mentions: [/task\.json/, /subcategory/],
  },
  {
    name: "objects is not an array",
    files: { "task.json": withTask((t) => (t.objects = "many")) },
    args: render(),
    code: 2,
    mentions: [/task\.json/, /objects/],
  },
  {
    name: "position holds a string",
    files: { "task.json": withTask((t) => (objs(t)[0]!.position = [0, "x", 0])) },
    args: render(),
    code: 2,
    mentions: [/task\.json/, /objects\.0\.position/],
  },
  {
    name: "position 1e999 (Infinity)",
    files: { "task.json": withTask((t) => (objs(t)[0]!.position = [0, 0, 0])).replace('"position":[0,0,0]', '"position":[1e999,0,0]') },
    args: render(),
    code: 2,
    mentions: [/task\.json/, /objects\.0\.position/],
  },
  {
    name: "object id in the reserved range",
    files: { "task.json": withTask((t) => (objs(t)[0]!.id = 5)) },
    args: render(),
    code: 2,
    mentions: [/task\.json/, /objects\.0\.id/],
  },
  {
    name: "negative extent (L3)",
    files: { "task.json": withTask((t) => (objs(t)[1]!.extent = [0.1, -0.2, 0.1])) },
    args: render(),
    code: 2,
    mentions: [/task\.json/, /objects\.1\.extent/],
  },
  {
    name: "zero extent",
    files: { "task.json": withTask((t) => (objs(t)[1]!.extent = [0, 0.1, 0.1])) },
    args: render(),
    code: 2,
    mentions: [/task\.json/, /objects\.1\.extent/],
  },
  {
    name: "zero quaternion (L3)",
    files: { "task.json": withTask((t) => (objs(t)[1]!.orientation = { x: 0, y: 0, z: 0, w: 0 })) },
    args: render(),
    code: 2,
    mentions: [/task\.json/, /objects\.1\.orientation/],
  },
  {
    name: "quaternion of norm 2",
    files: { "task.json": withTask((t) => (objs(t)[1]!.orientation = { x: 0, y: 0, z: 0, w: 2 })) },
    args: render(),
    code: 2,
    mentions: [/task\.json/, /objects\.1\.orientation/, /unit quaternion/],
  },
  {
    name: "object outside the room (L3)",
    files: { "task.json": withTask((t) => (objs(t)[1]!.position = [40, 0, 0.1])) },
    args: render(),
    code: 2,
    mentions: [/task\.json/, /objects\.1\.position/, /outside the room/],
  },
  {
    name: "two intersecting objects (L3)",
    files: { "task.json": withTask((t) => (objs(t)[4]!.position = [...(objs(t)[3]!.position as number[])])) },
    args: render(),
    code: 2,
    mentions: [/task\.json/, /objects\.3/, /objects 19 and 20 intersect/],
  },
  {
    name: "an object inside the sofa (not a container)",
    files: {
      "task.json": withTask((t) => {
        const sofa = objs(t).find((o) => o.category === "sofa")!;
        objs(t)[4]!.position = [(sofa.position as number[])[0]!, (sofa.position as number[])[1]!, 0.3];
      }),
    },
    args: render(),
    code: 2,
    mentions: [/task\.json/, /objects 17 and 20 intersect/],
  },
  {
    name: "3000 coincident copies",
    files: { "task.json": withTask((t) => (t.objects = [...objs(t), ...Array.from({ length: 3000 }, (_, i) => ({ ...objs(t)[1]!, id: 100 + i }))])) },
    args: render(),
    code: 2,
    mentions: [/task\.json/, /intersect/],
  },
  {
    name: "camera 1 px wide",
    files: { "task.json": withTask((t) => ((t.camera as Json).width = 1)) },
    args: render(),
    code: 2,
    mentions: [/task\.json/, /camera\.width/],
  },
  {
    name: "negative room size",
    files: { "task.json": withTask((t) => ((t.room as Json).size = [-5, 4])) },
    args: render(),
    code: 2,
    mentions: [/task\.json/, /room\.size/],
  },
  {
    name: "unknown answer format",
    files: { "task.json": withTask((t) => (t.answer_format = "essay")) },
    args: render(),
    code: 2,
    mentions: [/task\.json/, /answer_format/],
  },
  {
    name: "an unknown action in the trajectory",
    files: { "task.json": withTask((t) => (t.action_trajectory = ["turn_left", "fly"])) },
    args: (d) => ["render", "--tasks", join(d, "task.json"), "--paradigm", "gt", "--out", join(d, "out")],
    code: 2,
    mentions: [/task\.json/, /action_trajectory\.1/, /"fly" is not one of the actions \(move_forward, move_backward, /],
  },
  {
    name: "stop in the trajectory (it ends episodes; a trajectory replays moves)",
    files: { "task.json": withTask((t) => (t.action_trajectory = ["stop"])) },
    args: render(),
    code: 2,
    mentions: [/task\.json/, /action_trajectory\.0/, /stop ends an episode; a trajectory does not hold it/],
  },
  {
    name: "a suite whose task has an unknown action: no run directory",
    setup: (d) => {
      mkdirSync(join(d, "suite"));
      writeFileSync(
        join(d, "suite", "t.json"),
        withTask((t) => (t.action_trajectory = ["Move Forward"])),
      );
    },
    args: (d) => ["run", "--suite", join(d, "suite"), "--paradigm", "gt,active", "--source", "gt", "--out", join(d, "r")],
    code: 2,
    mentions: [/t\.json/, /action_trajectory\.0/, /got "Move Forward"/],
  },
  { name: "task path does not exist", args: render("nope.json"), code: 2, mentions: [/nope\.json/, /no such file/] },
  {
    name: "task directory without task files",
    setup: (d) => mkdirSync(join(d, "empty")),
    args: (d) => ["render", "--tasks", join(d, "empty"), "--out", join(d, "out")],
    code: 2,
    mentions: [/empty/, /no task files/],
  },
  {
    name: "a suite with a '..' task id: no run directory (M2, M6)",
    setup: (d) => {
      mkdirSync(join(d, "suite"));
      writeFileSync(
        join(d, "suite", "t.json"),
        withTask((t) => (t.task_id = "..")),
      );
    },
    args: (d) => ["run", "--suite", join(d, "suite"), "--paradigm", "single", "--source", "gt", "--out", join(d, "r")],
    code: 2,
    mentions: [/t\.json/, /task_id/],
  },
];

const CONFIG_CASES: Case[] = [
  { name: "config not JSON", ...cfgRun("{oops"), code: 2, mentions: [/cfg\.json/, /not valid JSON/] },
  { name: "config null (C08)", ...cfgRun("null"), code: 2, mentions: [/cfg\.json/, /null/] },
  { name: "config 42 (C09)", ...cfgRun("42"), code: 2, mentions: [/cfg\.json/, /number/] },
  { name: "config []", ...cfgRun("[]"), code: 2, mentions: [/cfg\.json/, /array/] },
  { name: 'config "fast"', ...cfgRun('"fast"'), code: 2, mentions: [/cfg\.json/, /string/] },
  { name: "config with an unknown key", ...cfgRun(json({ frobnicate: 1 })), code: 2, mentions: [/cfg\.json/, /frobnicate/] },
  { name: "config noiseLevel 3.5 (the scale ends at 3)", ...cfgRun(json({ noiseLevel: 3.5 })), code: 2, mentions: [/cfg\.json/, /noiseLevel/] },
  { name: 'config "llm": "fast" (C17)', ...cfgRun(json({ llm: "fast" })), code: 2, mentions: [/cfg\.json/, /llm/] },
  { name: "config out is a number", ...cfgRun(json({ out: 42 })), code: 2, mentions: [/cfg\.json/, /\bout\b/] },
  { name: "config perSubcategory 0", ...cfgRun(json({ perSubcategory: 0 })), code: 2, mentions: [/cfg\.json/, /perSubcategory/] },
  { name: "config paradigms [nope]", ...cfgRun(json({ paradigms: ["nope"] })), code: 2, mentions: [/cfg\.json/, /paradigms/] },
  { name: "config __proto__ key", ...cfgRun('{"__proto__": {"limit": 1}}'), code: 2, mentions: [/cfg\.json/, /__proto__/] },
  { name: "config suite that does not exist (M6)", ...cfgRun(json({ suite: "/nonexistent-suite" })), code: 2, mentions: [/nonexistent-suite/] },
  { name: "config maxSteps 0", ...cfgRun(json({ paradigms: ["active"], maxSteps: 0 })), code: 2, mentions: [/cfg\.json/, /maxSteps/, />=1/] },
  { name: "config threshold 2", ...cfgRun(json({ paradigms: ["active"], threshold: 2 })), code: 2, mentions: [/cfg\.json/, /threshold/, /<=1/] },
  {
    name: "config explorer greedy",
    ...cfgRun(json({ paradigms: ["active"], explorer: "greedy" })),
    code: 2,
    mentions: [/cfg\.json/, /explorer/, /"nbv"\|"verify"\|"random"/],
  },
  {
    name: "config invalidAction skip",
    ...cfgRun(json({ paradigms: ["active"], invalidAction: "skip" })),
    code: 2,
    mentions: [/cfg\.json/, /invalidAction/, /"reprompt"\|"forward"/],
  },
  {
    name: "config file missing",
    args: (d) => ["run", "--config", join(d, "none.json"), "--out", join(d, "r")],
    code: 2,
    mentions: [/none\.json/, /no such file/],
  },
  {
    name: "config is a directory",
    setup: (d) => mkdirSync(join(d, "cfgdir")),
    args: (d) => ["run", "--config", join(d, "cfgdir"), "--out", join(d, "r")],
    code: 2,
    mentions: [/cfgdir/, /directory/],
  },
];

const NO_KEYS = { OPENAI_API_KEY: undefined, OPENAI_BASE_URL: undefined, GEMINI_API_KEY: undefined };
const FLAG_CASES: Case[] = [
  { name: "--limit -1", args: runWith("--limit", "-1"), code: 2, mentions: [/--limit/] },
  { name: "--limit abc", args: runWith("--limit", "abc"), code: 2, mentions: [/--limit/] },
  { name: "--concurrency 0", args: runWith("--concurrency", "0"), code: 2, mentions: [/--concurrency/] },
  { name: "--concurrency 65", args: runWith("--concurrency", "65"), code: 2, mentions: [/--concurrency/] },
  { name: "--noise-level 99", args: runWith("--noise-level", "99"), code: 2, mentions: [/--noise-level/] },
  { name: "--paradigm nope", args: runWith("--paradigm", "nope"), code: 2, mentions: [/--paradigm/] },
  { name: "--source nope", args: runWith("--source", "nope"), code: 2, mentions: [/--source/] },
  { name: "--reasoner nope", args: runWith("--reasoner", "nope"), code: 2, mentions: [/--reasoner|nope/] },
  {
    name: "--base-url not a URL (F27)",
    args: runWith("--reasoner", "openai:m", "--base-url", "not a url"),
    env: { OPENAI_API_KEY: "x" },
    code: 2,
    mentions: [/--base-url/],
  },
  { name: "--timeout 0", args: runWith("--timeout", "0"), code: 2, mentions: [/--timeout/] },
  { name: "--item-deadline 0", args: runWith("--item-deadline", "0"), code: 2, mentions: [/--item-deadline/] },
  { name: "--max-retries 99", args: runWith("--max-retries", "99"), code: 2, mentions: [/--max-retries/] },
  { name: "--max-connections 0", args: runWith("--max-connections", "0"), code: 2, mentions: [/--max-connections/] },
  {
    name: "missing OPENAI_API_KEY: fails before any work (M3, M6)",
    args: runWith("--reasoner", "openai:gpt-4o"),
    env: NO_KEYS,
    code: 2,
    mentions: [/OPENAI_API_KEY/],
  },
  { name: "missing GEMINI_API_KEY", args: runWith("--reasoner", "gemini:gemini-2.5-flash"), env: NO_KEYS, code: 2, mentions: [/GEMINI_API_KEY/] },
  { name: "--out is a file (F10)", files: { afile: "x" }, args: (d) => ["run", "--limit", "1", "--out", join(d, "afile")], code: 2, mentions: [/afile/] },
  {
    name: "--out below a file (ENOTDIR)",
    files: { afile: "x" },
    args: (d) => ["run", "--limit", "1", "--out", join(d, "afile", "sub")],
    code: 2,
    mentions: [/afile/],
  },
  { name: "--resume where there is no run (F13)", args: runWith("--resume"), code: 2, mentions: [/--resume/] },
  { name: "generate --seed ../x", args: (d) => ["generate", "--seed", "../x", "--out", join(d, "t")], code: 2, mentions: [/--seed/] },
  {
    name: "generate --per-subcategory 0",
    args: (d) => ["generate", "--per-subcategory", "0", "--out", join(d, "t")],
    code: 2,
    mentions: [/--per-subcategory/],
  },
  {
    name: "generate --subcategories telepathy",
    args: (d) => ["generate", "--subcategories", "telepathy", "--out", join(d, "t")],
    code: 2,
    mentions: [/--subcategories/, /telepathy/],
  },
  {
    name: "generate --out is a file",
    files: { afile: "x" },
    args: (d) => ["generate", "--per-subcategory", "1", "--out", join(d, "afile")],
    code: 2,
    mentions: [/afile/],
  },
  {
    name: "render --paradigm nope",
    files: { "task.json": json(task()) },
    args: (d) => ["render", "--tasks", join(d, "task.json"), "--paradigm", "nope", "--out", join(d, "out")],
    code: 2,
    mentions: [/--paradigm/],
  },
  {
    name: "render --out is a file",
    files: { "task.json": json(task()), afile: "x" },
    args: (d) => ["render", "--tasks", join(d, "task.json"), "--out", join(d, "afile")],
    code: 2,
    mentions: [/afile/],
  },
  { name: "graph without -o", args: () => ["graph", bundleDir], code: 2, mentions: [/--out/] },
  {
    name: "graph -o names a directory (EISDIR)",
    setup: (d) => mkdirSync(join(d, "gdir")),
    args: (d) => ["graph", bundleDir, "-o", join(d, "gdir")],
    code: 2,
    mentions: [/gdir/, /directory/],
  },
  {
    name: "graph -o below a file (ENOTDIR)",
    files: { afile: "x" },
    args: (d) => ["graph", bundleDir, "-o", join(d, "afile", "g.json")],
    code: 2,
    mentions: [/afile/],
  },
  {
    name: "graph --diagnosis below a file",
    files: { afile: "x" },
    args: (d) => ["graph", bundleDir, "-o", join(d, "g.json"), "--diagnosis", join(d, "afile", "d.json")],
    code: 2,
    mentions: [/afile/],
  },
  {
    name: "graph --ply below a file",
    files: { afile: "x" },
    args: (d) => ["graph", bundleDir, "-o", join(d, "g.json"), "--ply", join(d, "afile", "c.ply")],
    code: 2,
    mentions: [/afile/],
  },
  {
    name: "graph --conceptgraphs names a file",
    files: { afile: "x" },
    args: (d) => ["graph", bundleDir, "-o", join(d, "g.json"), "--conceptgraphs", join(d, "afile")],
    code: 2,
    mentions: [/afile/, /not a directory/],
  },
  { name: "graph of a bundle that does not exist", args: (d) => ["graph", join(d, "nope"), "-o", join(d, "g.json")], code: 2, mentions: [/nope/] },
  {
    name: "points --conf-threshold -1",
    args: (d) => ["points", bundleDir, "--conf-threshold", "-1", "-o", join(d, "p.ply")],
    code: 2,
    mentions: [/--conf-threshold/],
  },
  {
    name: "points -o names a directory",
    setup: (d) => mkdirSync(join(d, "pdir")),
    args: (d) => ["points", bundleDir, "-o", join(d, "pdir")],
    code: 2,
    mentions: [/pdir/],
  },
  {
    name: "contact-sheet -o below a file",
    files: { afile: "x" },
    args: (d) => ["contact-sheet", bundleDir, "-o", join(d, "afile", "s.png")],
    code: 2,
    mentions: [/afile/],
  },
  {
    name: "run --max-steps 0",
    args: runWith("--paradigm", "active", "--max-steps", "0"),
    code: 2,
    mentions: [/--max-steps: expected an integer in \[1, 500\], got "0"/],
  },
  {
    name: "run --min-steps -1",
    args: runWith("--paradigm", "active", "--min-steps", "-1"),
    code: 2,
    mentions: [/--min-steps: expected an integer in \[0, 500\]/],
  },
  {
    name: "run --threshold 1.01",
    args: runWith("--paradigm", "active", "--threshold", "1.01"),
    code: 2,
    mentions: [/--threshold: expected a number in \[0, 1\], got "1.01"/],
  },
  {
    name: "run --explorer greedy",
    args: runWith("--paradigm", "active", "--explorer", "greedy"),
    code: 2,
    mentions: [/--explorer: expected one of nbv, verify, random, got "greedy"/],
  },
  {
    name: "ablate --paradigm active --max-steps 0",
    args: (d) => ["ablate", "--paradigm", "active", "--max-steps", "0", "--out", join(d, "a")],
    code: 2,
    mentions: [/--max-steps: expected an integer in \[1, 500\], got "0"/],
  },
  {
    name: "ablate --threshold -0.5",
    args: (d) => ["ablate", "--paradigm", "active", "--threshold", "-0.5", "--out", join(d, "a")],
    code: 2,
    mentions: [/--threshold: expected a number in \[0, 1\]/],
  },
  {
    name: "ablate --explorer greedy",
    args: (d) => ["ablate", "--paradigm", "active", "--explorer", "greedy", "--out", join(d, "a")],
    code: 2,
    mentions: [/--explorer: expected one of nbv, verify, random, got "greedy"/],
  },
  {
    name: "ablate --invalid-action skip",
    args: (d) => ["ablate", "--paradigm", "active", "--invalid-action", "skip", "--out", join(d, "a")],
    code: 2,
    mentions: [/--invalid-action: expected one of reprompt, forward, got "skip"/],
  },
  {
    name: "run --actions hands (the vocabularies are camera and all)",
    args: (d) => ["run", "--paradigm", "active", "--actions", "hands", "--out", join(d, "a")],
    code: 2,
    mentions: [/--actions: expected one of camera, all, got "hands"/],
  },
  { name: "ablate --noise 3.5 (the scale ends at 3)", args: (d) => ["ablate", "--noise", "3.5", "--out", join(d, "a")], code: 2, mentions: [/--noise/] },
  { name: "serve --token short", args: (d) => ["serve", "--port", "0", "--data", join(d, "data"), "--token", "abc"], code: 2, mentions: [/--token/] },
  {
    name: "serve --host 0.0.0.0 without a token",
    args: (d) => ["serve", "--port", "0", "--host", "0.0.0.0", "--data", join(d, "data")],
    env: { ESI3D_TOKEN: undefined },
    code: 2,
    mentions: [/--host/, /--token/],
  },
];

/** A copy of the rendered bundle in the row's folder, damaged by `edit`. */
const bundleCase = (name: string, edit: (b: string) => void, mentions: RegExp[]): Case => ({
  name,
  setup: (d) => {
    cpSync(bundleDir, join(d, "b"), { recursive: true });
    edit(join(d, "b"));
  },
  args: (d) => ["graph", join(d, "b"), "-o", join(d, "g.json")],
  code: 2,
  mentions,
});
const editManifest = (b: string, f: (m: Json) => void) => {
  const m = JSON.parse(readFileSync(join(b, "bundle.json"), "utf8")) as Json;
  f(m);
  writeFileSync(join(b, "bundle.json"), json(m));
};
const firstView = (m: Json) => (m.views as Json[])[0]!;

const BUNDLE_CASES: Case[] = [
  bundleCase("bundle.json missing", (b) => rmSync(join(b, "bundle.json")), [/bundle\.json/]),
  bundleCase("bundle.json not JSON", (b) => writeFileSync(join(b, "bundle.json"), "{"), [/bundle\.json/, /JSON/]),
  bundleCase("bundle format esi3d-bundle/9", (b) => editManifest(b, (m) => (m.format = "esi3d-bundle/9")), [/bundle\.json/, /format/]),
  bundleCase("manifest task_id '..'", (b) => editManifest(b, (m) => (m.task_id = "..")), [/bundle\.json/, /task_id/]),
  bundleCase("a view file missing", (b) => rmSync(join(b, "views", "000_rgb.png")), [/000_rgb\.png/]),
  bundleCase("a view path ../../etc/passwd", (b) => editManifest(b, (m) => (firstView(m).rgb = "../../etc/passwd")), [/etc\/passwd/]),
  bundleCase("a view path to a prefix sibling (B20)", (b) => editManifest(b, (m) => (firstView(m).rgb = "../b-evil/rgb.png")), [/b-evil/]),
  bundleCase(
    "a view that is a symlink out of the bundle (B17)",
    (b) => {
      rmSync(join(b, "views", "000_rgb.png"));
      symlinkSync("/etc/hostname", join(b, "views", "000_rgb.png"));
    },
    [/000_rgb\.png/],
  ),
  bundleCase("a short depth file", (b) => writeFileSync(join(b, "views", "000_depth.f32"), Buffer.alloc(16)), [/000_depth/]),
  bundleCase("a truncated PNG", (b) => writeFileSync(join(b, "views", "000_rgb.png"), readFileSync(join(b, "views", "000_rgb.png")).subarray(0, 60)), [
    /000_rgb\.png/,
  ]),
  bundleCase(
    "a view path naming a directory (B32)",
    (b) => {
      rmSync(join(b, "views", "000_rgb.png"));
      mkdirSync(join(b, "views", "000_rgb.png"));
    },
    [/000_rgb\.png/],
  ),
  bundleCase("no views", (b) => editManifest(b, (m) => (m.views = [])), [/bundle\.json/, /views/]),
  // issue 43: absurd but finite cameras are refused where they are read, naming the field
  bundleCase("a camera 1e300 m from the origin", (b) => editManifest(b, (m) => ((firstView(m).extrinsic as number[][])[0]![3] = 1e300)), [
    /bundle\.json: views\.0\.extrinsic: translation .* puts the camera 1\.000e\+300 m from the origin/,
  ]),
  bundleCase("a focal length of 1e-300 px", (b) => editManifest(b, (m) => ((firstView(m).intrinsics as Json).fx = 1e-300)), [
    /bundle\.json: views\.0\.intrinsics: fx = 1e-300 px/,
  ]),
];

/** A valid scene graph (the prompt tests' fixture) with one edit, and its task. */
const GOOD_GRAPH = join(REPO_ROOT, "test", "src", "prompt", "fixtures", "spatial_distance-000.gt.graph.json");
const SPATIAL_TASK = join(REPO_ROOT, "fixtures", "tasks", "spatial_distance-000.json");
const withGraph = (edit: (g: Json) => void): string => {
  const g = JSON.parse(readFileSync(GOOD_GRAPH, "utf8")) as Json;
  edit(g);
  return json(g);
};
const askGraph = (d: string) => ["ask", join(d, "g.json"), "--task", SPATIAL_TASK];

const ASK_CASES: Case[] = [
  {
    name: "ask: a node with an absurd centroid (A10)",
    files: { "g.json": withGraph((g) => ((g.nodes as Json[])[0]!.centroid = [1e308, 0, 0])) },
    args: askGraph,
    code: 2,
    mentions: [/g\.json/, /nodes\.0\.centroid/],
  },
  {
    name: "ask: a node without its box (A10)",
    files: { "g.json": withGraph((g) => delete (g.nodes as Json[])[0]!.box) },
    args: askGraph,
    code: 2,
    mentions: [/g\.json/, /nodes\.0\.box/],
  },
  {
    name: "ask: a relation naming a node that does not exist (A12)",
    files: { "g.json": withGraph((g) => ((g.relations as Json[])[0]!.subject = "n999")) },
    args: askGraph,
    code: 2,
    mentions: [/g\.json/, /relations\.0\.subject/, /n999/],
  },
  {
    name: "ask: graph file not JSON",
    files: { "g.json": "{x", "t.json": json(task()) },
    args: (d) => ["ask", join(d, "g.json"), "--task", join(d, "t.json")],
    code: 2,
    mentions: [/g\.json/, /JSON/],
  },
  {
    name: "ask: graph format esi3d-graph/9",
    files: { "g.json": json({ format: "esi3d-graph/9" }), "t.json": json(task()) },
    args: (d) => ["ask", join(d, "g.json"), "--task", join(d, "t.json")],
    code: 2,
    mentions: [/g\.json/, /format/],
  },
  {
    name: "ask: graph with only its format (A04)",
    files: { "g.json": json({ format: "esi3d-graph/1" }), "t.json": json(task()) },
    args: (d) => ["ask", join(d, "g.json"), "--task", join(d, "t.json")],
    code: 2,
    mentions: [/g\.json/],
  },
  {
    name: "ask: nodes is a string (A05)",
    files: { "g.json": json({ format: "esi3d-graph/1", nodes: "many" }), "t.json": json(task()) },
    args: (d) => ["ask", join(d, "g.json"), "--task", join(d, "t.json")],
    code: 2,
    mentions: [/g\.json/, /not a valid scene graph/],
  },
  { name: "ask: path does not exist", args: (d) => ["ask", join(d, "nope.json")], code: 2, mentions: [/nope\.json/] },
  {
    name: "ask: --task is not a task",
    files: { "g.json": json({ format: "esi3d-graph/1" }), "t.json": json({ format: "esi3d-bundle/1" }) },
    args: (d) => ["ask", join(d, "g.json"), "--task", join(d, "t.json")],
    code: 2,
    mentions: [/t\.json|g\.json/],
  },
];

const RUN_DIR_CASES: Case[] = [
  {
    name: "compare: not a run directory",
    setup: (d) => (mkdirSync(join(d, "a")), mkdirSync(join(d, "b"))),
    args: (d) => ["compare", join(d, "a"), join(d, "b")],
    code: 2,
    mentions: [/\ba\b|\bb\b/, /not a run directory/],
  },
  {
    name: "inspect: a JSON file, not a directory",
    files: { "g.json": "{}" },
    args: (d) => ["inspect", join(d, "g.json"), "-o", join(d, "page.html")],
    code: 2,
    mentions: [/g\.json/],
  },
  {
    name: "run --resume over a corrupt line mid-file (I03)",
    setup: (d) => {
      mkdirSync(join(d, "r"));
      writeFileSync(join(d, "r", "items.jsonl"), '{"key": "a"}\n{"key": "broken\n{"key": "c"}\n');
    },
    args: runWith("--resume"),
    code: 2,
    mentions: [/\br\b/],
  },
];

// ---- issue 43: outputs over inputs, importers, readers, flags, model replies ----

/** A small run (one task, one paradigm, the gt arm with oracle labels) made in beforeAll, and one of seed 7. */
let runDir = "",
  seed7Dir = "";
/** A 16-bit PNG declaring 16000x16000 whose zero rows deflate to ~0.5 MB, made in beforeAll. */
let pngBomb: Buffer = Buffer.alloc(0);
/** Loopback OpenAI-compatible servers: one answers 20 MB, one answers with terminal escape sequences. */
let hugeServer: TestServer | null = null,
  ctrlServer: TestServer | null = null;

const SMALL_RUN = ["--limit", "1", "--paradigm", "single", "--source", "gt", "--baseline", "none", "--labels", "oracle"];
const KEY = { OPENAI_API_KEY: "sk-test-not-a-key" };
const views3 = () => {
  const b = readBundle(bundleDir);
  return { b, views: [b.views[0]!, b.views[0]!, b.views[0]!] };
};
/** A ScanNet reader.py scene of three frames (depth/0, 2, 110) in `d/name`. */
const scannet = (d: string, name = "s") => {
  const { b, views } = views3();
  writeScannet(join(d, name), b, views);
  return join(d, name);
};
const importScannet =
  (...extra: string[]) =>
  (d: string) => ["import", "scannet", join(d, "s"), "--out", join(d, "o"), ...extra];
const mkfifo = (p: string) => {
  rmSync(p, { force: true });
  expect(spawnSync("mkfifo", [p]).status).toBe(0);
};
const copyRun = (d: string, name = "r", from = () => runDir) => {
  cpSync(from(), join(d, name), { recursive: true });
  return join(d, name);
};
const editItems = (run: string, edit: (lines: Array<Record<string, unknown>>) => Array<Record<string, unknown>>) => {
  const f = join(run, "items.jsonl");
  const lines = readFileSync(f, "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  writeFileSync(
    f,
    edit(lines)
      .map((l) => JSON.stringify(l))
      .join("\n") + "\n",
  );
};
const pose = (m: string) => (d: string) => writeFileSync(join(d, "s", "pose", "2.txt"), m);

const OUTPUT_CASES: Case[] = [
  {
    name: "import scannet S --out S --force keeps the scene (H1)",
    setup: (d) => void scannet(d),
    args: (d) => ["import", "scannet", join(d, "s"), "--out", join(d, "s"), "--force"],
    code: 2,
    mentions: [/--out .*\/s: the output is the input <dir>/],
  },
  {
    name: "import scannet S --out S/depth --force keeps the depth frames (H1)",
    setup: (d) => void scannet(d),
    args: (d) => ["import", "scannet", join(d, "s"), "--out", join(d, "s", "depth"), "--force"],
    code: 2,
    mentions: [/s\/depth: the output lies inside the input <dir> .*\/s\b/],
  },
  {
    name: "import scannet S --out <its parent> --force",
    setup: (d) => void scannet(d),
    args: (d) => ["import", "scannet", join(d, "s"), "--out", d, "--force"],
    code: 2,
    mentions: [/the output contains the input <dir>/],
  },
  {
    name: "import esi-bench EB --out EB --force keeps the records (H1)",
    setup: (d) => cpSync(join(REPO_ROOT, "fixtures", "esi-bench"), join(d, "eb"), { recursive: true }),
    args: (d) => ["import", "esi-bench", join(d, "eb"), "--out", join(d, "eb"), "--force"],
    code: 2,
    mentions: [/eb: the output is the input <dir> .*eb/],
  },
  {
    name: "inspect RUN -o RUN/items.jsonl keeps the results (H2)",
    setup: (d) => void copyRun(d),
    args: (d) => ["inspect", join(d, "r"), "--task", "geometric_configuration-000", "-o", join(d, "r", "items.jsonl")],
    code: 2,
    mentions: [/items\.jsonl: the output lies inside the input <dir> .*\/r\b/],
  },
  {
    name: "inspect RUN -o RUN/config.json (H2)",
    setup: (d) => void copyRun(d),
    args: (d) => ["inspect", join(d, "r"), "--task", "geometric_configuration-000", "-o", join(d, "r", "config.json")],
    code: 2,
    mentions: [/config\.json: the output lies inside the input/],
  },
  {
    name: "inspect through a link to the run: -o LINK/items.jsonl",
    setup: (d) => (copyRun(d), symlinkSync(join(d, "r"), join(d, "ln"))),
    args: (d) => ["inspect", join(d, "r"), "--task", "geometric_configuration-000", "-o", join(d, "ln", "items.jsonl")],
    code: 2,
    mentions: [/ln\/items\.jsonl \(.*\/r\/items\.jsonl\): the output lies inside the input/],
  },
  {
    name: "graph B -o B/bundle.json (H2)",
    setup: (d) => cpSync(bundleDir, join(d, "b"), { recursive: true }),
    args: (d) => ["graph", join(d, "b"), "-o", join(d, "b", "bundle.json")],
    code: 2,
    mentions: [/bundle\.json: the output lies inside the input <bundle>/],
  },
  {
    name: "points B -o B/views/000_rgb.png (H2)",
    setup: (d) => cpSync(bundleDir, join(d, "b"), { recursive: true }),
    args: (d) => ["points", join(d, "b"), "--source", "gt", "-o", join(d, "b", "views", "000_rgb.png")],
    code: 2,
    mentions: [/000_rgb\.png: the output lies inside the input <bundle>/],
  },
  {
    name: "contact-sheet B -o B/views/000_rgb.png (H2)",
    setup: (d) => cpSync(bundleDir, join(d, "b"), { recursive: true }),
    args: (d) => ["contact-sheet", join(d, "b"), "-o", join(d, "b", "views", "000_rgb.png")],
    code: 2,
    mentions: [/000_rgb\.png: the output lies inside the input <bundle>/],
  },
  {
    name: "run --suite T --out T leaves the suite as it was (M7)",
    setup: (d) => (mkdirSync(join(d, "t")), cpSync(FIXTURE_TASK, join(d, "t", "geometric_configuration-000.json"))),
    args: (d) => ["run", "--suite", join(d, "t"), ...SMALL_RUN, "--out", join(d, "t")],
    code: 2,
    mentions: [/--out .*\/t: the output is the input --suite/],
  },
  {
    name: "run --config R/cfg.json --out R",
    files: { "cfg.json": json({ limit: 1 }) },
    args: (d) => ["run", "--config", join(d, "cfg.json"), ...SMALL_RUN, "--out", d],
    code: 2,
    mentions: [/the output contains the input --config .*cfg\.json/],
  },
  {
    name: "two outputs, one path: inspect -o p.html --ply p.html (I12)",
    args: (d) => ["inspect", bundleDir, "-o", join(d, "p.html"), "--ply", join(d, "p.html")],
    code: 2,
    mentions: [/--ply .*p\.html: the same path as --out .*p\.html/],
  },
  {
    name: "two outputs, one path: graph -o g.json --ply g.json (I13)",
    args: (d) => ["graph", bundleDir, "-o", join(d, "g.json"), "--ply", join(d, "g.json")],
    code: 2,
    mentions: [/--ply .*g\.json: the same path as --out/],
  },
  {
    name: "two outputs, one path through a link: graph -o g.json --diagnosis L/g.json",
    setup: (d) => symlinkSync(d, join(d, "l")),
    args: (d) => ["graph", bundleDir, "-o", join(d, "g.json"), "--diagnosis", join(d, "l", "g.json")],
    code: 2,
    mentions: [/--diagnosis .*l\/g\.json .*: the same path as --out/],
  },
  {
    name: "ask --save-episode inside the task's bundle",
    setup: (d) => cpSync(bundleDir, join(d, "b"), { recursive: true }),
    args: (d) => ["ask", join(d, "b"), "--paradigm", "active", "--save-episode", join(d, "b", "views")],
    code: 2,
    mentions: [/--save-episode .*b\/views: the output lies inside the input <input>/],
  },
  { name: "run --out '' (F18)", args: () => ["run", ...SMALL_RUN, "--out", ""], code: 2, mentions: [/--out: an empty path/] },
  { name: "generate --out ''", args: () => ["generate", "--per-subcategory", "1", "--out", ""], code: 2, mentions: [/--out: an empty path/] },
  {
    name: "output through a link loop",
    setup: (d) => symlinkSync(join(d, "loop"), join(d, "loop")),
    args: (d) => ["graph", bundleDir, "-o", join(d, "loop", "g.json")],
    code: 2,
    mentions: [/loop.*(link loop|ELOOP)/],
  },
];

const IMPORT_CASES: Case[] = [
  {
    name: "scannet: a pose of -inf (lost tracking) is left out, exit 0 (M1)",
    setup: (d) => (scannet(d), pose("-inf -inf -inf -inf\n-inf -inf -inf -inf\n-inf -inf -inf -inf\n-inf -inf -inf -inf\n")(d)),
    args: importScannet(),
    code: 0,
    creates: ["o"],
    mentions: [/1 frame\(s\) with non-finite poses left out \(lost tracking\)/, /2 views .* of 2 scannet frames/],
  },
  {
    name: "scannet: a pose of inf and nan (numpy's spellings) is left out",
    setup: (d) => (scannet(d), pose("inf nan 0 0\n0 1 0 0\n0 0 1 0\n0 0 0 1\n")(d)),
    args: importScannet(),
    code: 0,
    creates: ["o"],
    mentions: [/1 frame\(s\) with non-finite poses left out/],
  },
  {
    name: "scannet: a pose of NaN in capitals, -Infinity",
    setup: (d) => (scannet(d), pose("NaN -Infinity 0 0\n0 1 0 0\n0 0 1 0\n0 0 0 1\n")(d)),
    args: importScannet(),
    code: 0,
    creates: ["o"],
    mentions: [/1 frame\(s\) with non-finite poses left out/],
  },
  {
    name: "scannet: a depth frame that is a directory (S17)",
    setup: (d) => (scannet(d), rmSync(join(d, "s", "depth", "2.png")), mkdirSync(join(d, "s", "depth", "2.png"))),
    args: importScannet(),
    code: 2,
    mentions: [/depth\/2\.png: is a directory, expected a file \(depth image\)/],
  },
  {
    name: "scannet: a colour frame that is a named pipe (S18)",
    setup: (d) => (scannet(d), mkfifo(join(d, "s", "color", "2.png"))),
    args: importScannet(),
    code: 2,
    mentions: [/color\/2\.png: is a named pipe, expected a file/],
  },
  {
    name: "scannet: a pose file that is a named pipe",
    setup: (d) => (scannet(d), mkfifo(join(d, "s", "pose", "110.txt"))),
    args: importScannet(),
    code: 2,
    mentions: [/pose\/110\.txt: is a named pipe/],
  },
  {
    name: "scannet: a pose translation of 1e300 (S03)",
    setup: (d) => (scannet(d), pose("1 0 0 1e300\n0 1 0 0\n0 0 1 0\n0 0 0 1\n")(d)),
    args: importScannet(),
    code: 2,
    mentions: [/pose\/2\.txt: camera position .* 1\.000e\+300 m from the origin; expected at most 10000 m/],
  },
  {
    name: "scannet: fx = fy = 1e-300 (S11)",
    setup: (d) => (scannet(d), writeFileSync(join(d, "s", "intrinsic", "intrinsic_depth.txt"), "1e-300 0 259 0\n0 1e-300 196 0\n0 0 1 0\n0 0 0 1\n")),
    args: importScannet(),
    code: 2,
    mentions: [/intrinsic_depth\.txt: fx = 1e-300 px on a 518x392 image; expected a finite focal length/],
  },
  {
    name: "scannet: intrinsics of Infinity (S10)",
    setup: (d) => (scannet(d), writeFileSync(join(d, "s", "intrinsic", "intrinsic_depth.txt"), "Infinity 0 259 0\n0 Infinity 196 0\n0 0 1 0\n0 0 0 1\n")),
    args: importScannet(),
    code: 2,
    mentions: [/intrinsic_depth\.txt: intrinsics fx Infinity.*expected positive finite focal lengths/],
  },
  {
    name: "--intrinsics 1e999,... (T10)",
    setup: (d) => void scannet(d),
    args: importScannet("--intrinsics", "1e999,1e999,259,196"),
    code: 2,
    mentions: [/--intrinsics: expected fx,fy,cx,cy with positive focal lengths/],
  },
  {
    name: "--intrinsics with fx of 1e-9 px",
    setup: (d) => void scannet(d),
    args: importScannet("--intrinsics", "1e-9,1e-9,259,196"),
    code: 2,
    mentions: [/--intrinsics: fx = 1e-9 px on a 518x392 image/],
  },
  {
    name: "scannet: a depth PNG declaring 16000x16000 (S28), memory bounded",
    setup: (d) => (scannet(d), writeFileSync(join(d, "s", "depth", "0.png"), pngBomb)),
    args: importScannet(),
    code: 2,
    maxRssMiB: 400,
    mentions: [/depth\/0\.png: depth image declares 16000x16000 \(256\.0 M pixels\), more than the 32 Mi pixels/],
  },
  {
    name: "scannet: a later depth frame declaring 16000x16000",
    setup: (d) => (scannet(d), writeFileSync(join(d, "s", "depth", "110.png"), pngBomb)),
    args: importScannet(),
    code: 2,
    maxRssMiB: 400,
    mentions: [/depth\/110\.png: depth image is 16000x16000, expected 518x392 \(the scene's first depth image\)/],
  },
  {
    name: "scannet: a colour PNG declaring 16000x16000 of another aspect",
    setup: (d) => (scannet(d), writeFileSync(join(d, "s", "color", "2.png"), pngBomb)),
    args: importScannet(),
    code: 2,
    maxRssMiB: 400,
    mentions: [/color\/2\.png: colour image declares 16000x16000/],
  },
  {
    name: "replica: a depth image named depthabc.png (R03)",
    setup: (d) => (
      writeReplica(join(d, "rep"), views3().views),
      writeFileSync(join(d, "rep", "results", "depthabc.png"), readFileSync(join(d, "rep", "results", "depth000000.png")))
    ),
    args: (d) => ["import", "replica", join(d, "rep"), "--out", join(d, "o")],
    code: 2,
    mentions: [/results\/depthabc\.png: expected a depth image named depth<frame number>\.png/],
  },
  {
    name: "replica: depth-1.png (R10)",
    setup: (d) => (
      writeReplica(join(d, "rep"), views3().views),
      writeFileSync(join(d, "rep", "results", "depth-1.png"), readFileSync(join(d, "rep", "results", "depth000000.png")))
    ),
    args: (d) => ["import", "replica", join(d, "rep"), "--out", join(d, "o")],
    code: 2,
    mentions: [/results\/depth-1\.png: expected a depth image named depth<frame number>\.png/],
  },
  {
    name: "replica: cam_params.json of 10x the depth image's aspect (R09)",
    setup: (d) => {
      writeReplica(join(d, "rep"), views3().views);
      const f = join(d, "rep", "cam_params.json");
      const c = JSON.parse(readFileSync(f, "utf8")) as { camera: Record<string, number> };
      writeFileSync(f, json({ camera: { ...c.camera, w: c.camera.w! * 10 } }));
    },
    args: (d) => ["import", "replica", join(d, "rep"), "--out", join(d, "o")],
    code: 2,
    mentions: [/cam_params\.json: camera: intrinsics are given for a 5180x392 image, whose aspect differs from the 518x392 depth image's/],
  },
  {
    name: "replica: depth scale 1e-300 (R01)",
    setup: (d) => {
      writeReplica(join(d, "rep"), views3().views);
      const f = join(d, "rep", "cam_params.json");
      const c = JSON.parse(readFileSync(f, "utf8")) as { camera: Record<string, number> };
      writeFileSync(f, json({ camera: { ...c.camera, scale: 1e-300 } }));
    },
    args: (d) => ["import", "replica", join(d, "rep"), "--out", join(d, "o")],
    code: 2,
    mentions: [/cam_params\.json: .*camera\.scale: .*>=1/],
  },
  {
    name: "tum: a translation of 1e308 (T09)",
    setup: (d) => {
      writeTum(join(d, "t"), views3().views);
      const f = join(d, "t", "groundtruth.txt");
      const lines = readFileSync(f, "utf8").split("\n");
      const k = lines.findIndex((l) => l && !l.startsWith("#"));
      const parts = lines[k]!.split(" ");
      parts[1] = "1e308";
      lines[k] = parts.join(" ");
      writeFileSync(f, lines.join("\n"));
    },
    args: (d) => ["import", "tum", join(d, "t"), "--out", join(d, "o")],
    code: 2,
    mentions: [/groundtruth\.txt: line 3: camera position .* m from the origin; expected at most 10000 m/],
  },
  {
    name: "tum: depth.txt names a file outside the sequence (T06)",
    setup: (d) => {
      writeTum(join(d, "t"), views3().views);
      mkdirSync(join(d, "outside"));
      const f = join(d, "t", "depth.txt");
      const lines = readFileSync(f, "utf8").split("\n");
      const k = lines.findIndex((l) => l && !l.startsWith("#"));
      const [ts, file] = lines[k]!.split(" ");
      cpSync(join(d, "t", file!), join(d, "outside", "x.png"));
      lines[k] = `${ts} ../outside/x.png`;
      writeFileSync(f, lines.join("\n"));
    },
    args: (d) => ["import", "tum", join(d, "t"), "--out", join(d, "o")],
    code: 2,
    mentions: [/depth\.txt: line 4: names \.\.\/outside\/x\.png, outside the sequence folder/],
  },
  {
    name: "tum: --intrinsics replaces TUM's default in the notes (T16)",
    setup: (d) => void writeTum(join(d, "t"), views3().views),
    args: (d) => {
      const K = readBundle(bundleDir).views[0]!.K;
      return ["import", "tum", join(d, "t"), "--out", join(d, "o"), "--intrinsics", `${K.fx},${K.fy},${K.cx},${K.cy}`];
    },
    code: 0,
    creates: ["o"],
    mentions: [/import: intrinsics: --intrinsics [\d.]+,[\d.]+,[\d.]+,[\d.]+ \(the layout's own not used\)/],
    absent: [/TUM's default/],
  },
  {
    name: "esi-bench: a record that is a named pipe is refused by name (B04), the others written",
    setup: (d) => {
      cpSync(join(REPO_ROOT, "fixtures", "esi-bench"), join(d, "eb"), { recursive: true });
      const first = readdirSync(join(d, "eb", "dataset", "json_clean"), { recursive: true })
        .map(String)
        .find((f) => f.endsWith(".json") && f.includes("/"))!;
      mkfifo(join(d, "eb", "dataset", "json_clean", `${first.slice(0, -5)}-pipe.json`));
    },
    args: (d) => ["import", "esi-bench", join(d, "eb"), "--out", join(d, "o")],
    code: 2,
    creates: ["o"],
    mentions: [/import: refused .*-pipe\.json: \(file\): is a named pipe, expected a record file/],
  },
  {
    name: "esi-bench: the source is a named pipe",
    setup: (d) => mkfifo(join(d, "p.json")),
    args: (d) => ["import", "esi-bench", join(d, "p.json"), "--out", join(d, "o")],
    code: 2,
    mentions: [/p\.json: is a named pipe/],
  },
];

/** A valid graph whose first node's label is `label`. */
const labelled = (label: string) => withGraph((g) => ((g.nodes as Json[])[0]!.label = label));

const READER_CASES: Case[] = [
  {
    name: "ask: a 5 MB node label (Q09)",
    files: { "g.json": labelled("x".repeat(5_000_000)) },
    args: askGraph,
    code: 2,
    mentions: [/g\.json/, /nodes\.0\.label/, /at most 128|<=128/],
    absent: [/x{300}/],
  },
  {
    name: "ask: a graph file over 64 MiB (Q01)",
    setup: (d) => (writeFileSync(join(d, "g.json"), ""), truncateSync(join(d, "g.json"), 65 * 2 ** 20)),
    args: askGraph,
    code: 2,
    maxRssMiB: 400,
    mentions: [/g\.json: 65\.0 MiB, more than the 64 MiB a scene graph/],
  },
  {
    name: "ask: a graph file that is a named pipe",
    setup: (d) => mkfifo(join(d, "g.json")),
    args: askGraph,
    code: 2,
    mentions: [/g\.json: not a regular file/],
  },
  {
    name: "inspect: a stored graph that links to itself (I08)",
    setup: (d) => {
      const r = copyRun(d);
      const dir = join(r, "graphs", "geometric_configuration-000");
      const f = readdirSync(dir)[0]!;
      rmSync(join(dir, f));
      symlinkSync(join(dir, f), join(dir, f));
    },
    args: (d) => ["inspect", join(d, "r"), "--task", "geometric_configuration-000", "-o", join(d, "p.html")],
    code: 2,
    mentions: [/single__gt\.json: cannot read: too many symbolic links/],
  },
  {
    name: "compare: runs of seed 0 and seed 7 share task ids, not tasks (M01)",
    setup: (d) => (copyRun(d, "a"), copyRun(d, "b", () => seed7Dir)),
    args: (d) => ["compare", join(d, "a"), join(d, "b")],
    code: 2,
    mentions: [/task geometric_configuration-000 is not the same task in both runs \(task_hash [0-9a-f]{16} and [0-9a-f]{16}\)/, /\ba and .*\bb\b/],
  },
  {
    name: "compare: a run whose records have no task_hash still reads, with a note",
    setup: (d) => {
      copyRun(d, "a");
      editItems(copyRun(d, "b"), (ls) => ls.map(({ task_hash: _h, ...r }) => r));
    },
    args: (d) => ["compare", join(d, "a"), join(d, "b")],
    code: 0,
    mentions: [/WARNING: 1 shared item\(s\) have a task_hash in one run only \(the other's records were written before esi3d recorded it\)/],
  },
  {
    name: "compare: every line repeated 3 times (M10)",
    setup: (d) => (copyRun(d, "a"), editItems(copyRun(d, "b"), (ls) => ls.flatMap((l) => [l, l, l]))),
    args: (d) => ["compare", join(d, "a"), join(d, "b")],
    code: 0,
    mentions: [/WARNING: B's .*b\/items\.jsonl repeats 2 item key\(s\) on later lines; each item is counted once/],
  },
  {
    name: "compare: a record of paradigm teleport (M13)",
    setup: (d) => (copyRun(d, "a"), editItems(copyRun(d, "b"), (ls) => ls.map((l) => ({ ...l, paradigm: "teleport" })))),
    args: (d) => ["compare", join(d, "a"), join(d, "b")],
    code: 2,
    mentions: [/b\/items\.jsonl: line 1 is not an item record: paradigm/],
  },
  {
    name: "config naming a subcategory twice (F09)",
    ...cfgRun(json({ subcategories: ["spatial_distance", "spatial_distance"] })),
    code: 2,
    mentions: [/cfg\.json/, /subcategories/, /named twice/],
  },
  { name: "run --no-cache --cache FILE (F13)", args: runWith("--no-cache", "--cache", "c.sqlite"), code: 2, mentions: [/--cache, --no-cache: both given/] },
  { name: "run --cache FILE --no-cache", args: runWith("--cache", "c.sqlite", "--no-cache"), code: 2, mentions: [/--cache, --no-cache: both given/] },
  {
    name: "ask --no-cache --cache FILE",
    args: (d) => [...askGraph(d), "--no-cache", "--cache", join(d, "c.sqlite")],
    files: { "g.json": withGraph(() => undefined) },
    code: 2,
    mentions: [/--cache, --no-cache: both given/],
  },
  { name: "run --store without --queue (F14)", args: runWith("--store", "st"), code: 2, mentions: [/--store: only with --queue/] },
];

const llmArgs = (server: () => TestServer | null) => (d: string) => [
  ...askGraph(d),
  "--reasoner",
  "openai:test-model",
  "--base-url",
  `${server()!.url}/v1`,
  "--no-cache",
  "--max-retries",
  "0",
];

const LLM_CASES: Case[] = [
  {
    name: "ask: a 20 MB reply is refused as reply_too_large, not shown (M3)",
    files: { "g.json": withGraph(() => undefined) },
    args: llmArgs(() => hugeServer),
    env: KEY,
    code: 1,
    maxRssMiB: 400,
    mentions: [/larger than the 8388608-byte limit/],
  },
  {
    name: "run: 20 MB replies are recorded as LlmError:reply_too_large, nothing stored whole (M3)",
    args: (d) => [
      "run",
      ...SMALL_RUN,
      "--reasoner",
      "openai:test-model",
      "--base-url",
      `${hugeServer!.url}/v1`,
      "--max-retries",
      "0",
      "--cache",
      join(d, "c.sqlite"),
      "--out",
      join(d, "r"),
    ],
    env: KEY,
    code: 1,
    maxRssMiB: 600,
    creates: ["r", "c.sqlite"],
    mentions: [/no item got an answer \(LlmError:reply_too_large 1\)/],
    after: (d) => {
      expect(statSync(join(d, "r", "items.jsonl")).size).toBeLessThan(64 * 1024);
      expect(statSync(join(d, "c.sqlite")).size).toBeLessThan(1024 * 1024);
    },
  },
  {
    name: "ask: a reply's escape sequences are shown escaped, not sent to the terminal (M9)",
    files: { "g.json": withGraph(() => undefined) },
    args: llmArgs(() => ctrlServer),
    env: KEY,
    code: 0,
    mentions: [/\\x1b\[2J\\x1b\]0;pwned\\x07/],
    absent: [/\x1b/, /\x07/],
  },
];

const CORPUS: Case[] = [
  ...TASK_CASES,
  ...CONFIG_CASES,
  ...FLAG_CASES,
  ...BUNDLE_CASES,
  ...ASK_CASES,
  ...RUN_DIR_CASES,
  ...OUTPUT_CASES,
  ...IMPORT_CASES,
  ...READER_CASES,
  ...LLM_CASES,
];
/** The service's corpus (test/src/apps/service/badRequests.test.ts) has 49 rows; together at least the 100. */
export const CLI_CORPUS_SIZE = CORPUS.length;

/** Every entry below `dir` with a hash of its content (a link by its target, a pipe as such): nothing may change unless a row says so. */
function listing(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string) => {
    for (const f of readdirSync(d)) {
      const p = join(d, f);
      const st = lstatSync(p);
      const rel = relative(dir, p);
      if (st.isSymbolicLink()) out.set(rel, "link");
      else if (st.isDirectory()) {
        out.set(rel, "dir");
        walk(p);
      } else if (st.isFile()) out.set(rel, createHash("sha256").update(readFileSync(p)).digest("hex"));
      else out.set(rel, "special");
    }
  };
  walk(dir);
  return out;
}

/** The listing without the entries a row is meant to write. */
const without = (l: Map<string, string>, created: readonly string[]) => new Map([...l].filter(([k]) => !created.some((c) => k === c || k.startsWith(`${c}/`))));

/** The built CLI under /usr/bin/time: its output, exit code and peak resident memory (MiB). */
function esi3dMeasured(
  args: string[],
  opts: { cwd: string; env: Record<string, string | undefined>; timeoutMs: number },
): Promise<{ code: number | null; stdout: string; stderr: string; rssMiB: number }> {
  return new Promise((resolve) => {
    const child = spawn("/usr/bin/time", ["-f", "esi3d-peak-rss-kb %M", process.execPath, CLI, ...args], {
      cwd: opts.cwd,
      env: { ...process.env, ...opts.env } as NodeJS.ProcessEnv,
      timeout: opts.timeoutMs,
    });
    let stdout = "",
      stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("close", (code) => {
      const m = /esi3d-peak-rss-kb (\d+)/.exec(stderr);
      resolve({
        code,
        stdout,
        stderr: stderr.replace(/.*esi3d-peak-rss-kb \d+\n?/, "").replace(/Command exited with non-zero status \d+\n/, ""),
        rssMiB: m ? Number(m[1]) / 1024 : NaN,
      });
    });
  });
}

/** A 16-bit greyscale PNG declaring `w` x `h` of zero rows, deflated as it is made (a few MB of memory at most). */
async function zeroPng16(w: number, h: number): Promise<Buffer> {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(h, 4);
  ihdr[8] = 16;
  const deflate = createDeflate({ level: 9 });
  const parts: Buffer[] = [];
  deflate.on("data", (c: Buffer) => parts.push(c));
  const done = new Promise((r) => deflate.on("end", r));
  const row = Buffer.alloc(1 + 2 * w);
  for (let y = 0; y < h; y++) if (!deflate.write(row)) await new Promise((r) => deflate.once("drain", r));
  deflate.end();
  await done;
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk("IHDR", ihdr),
    pngChunk("IDAT", Buffer.concat(parts)),
    pngChunk("IEND", Buffer.alloc(0)),
  ]);
}

describe("the CLI's bad-input corpus", () => {
  const root = mkdtempSync(join(tmpdir(), "esi3d-corpus-"));
  beforeAll(async () => {
    const r = await esi3dAsync(["render", "--tasks", FIXTURE_TASK, "--paradigm", "single", "--out", join(root, "bundles")]);
    expect(r.code, r.stderr).toBe(0);
    bundleDir = join(root, "bundles", "geometric_configuration-000", "single");
    runDir = join(root, "run-seed0");
    seed7Dir = join(root, "run-seed7");
    const [a, b] = await Promise.all([esi3dAsync(["run", ...SMALL_RUN, "--out", runDir]), esi3dAsync(["run", ...SMALL_RUN, "--seed", "7", "--out", seed7Dir])]);
    expect(a.code, a.stderr).toBe(0);
    expect(b.code, b.stderr).toBe(0);
    pngBomb = await zeroPng16(16_000, 16_000);
    // 20 MB of content: Content-Length declared on even requests, streamed (chunked, no length) on odd ones
    let n = 0;
    const huge = JSON.stringify({
      id: "c",
      object: "chat.completion",
      created: 1,
      model: "test-model",
      choices: [{ index: 0, message: { role: "assistant", content: "7".repeat(20_000_000) }, finish_reason: "stop" }],
    });
    hugeServer = await startServer((_req, res) => {
      if (n++ % 2 === 0) res.writeHead(200, { "content-type": "application/json", "content-length": String(Buffer.byteLength(huge)) }).end(huge);
      else {
        res.writeHead(200, { "content-type": "application/json" });
        for (let i = 0; i < huge.length; i += 1 << 20) res.write(huge.slice(i, i + (1 << 20)));
        res.end();
      }
    });
    const ctrl = JSON.stringify({
      id: "c",
      object: "chat.completion",
      created: 1,
      model: "test-model",
      choices: [
        {
          index: 0,
          message: { role: "assistant", content: "\u001b[2J\u001b]0;pwned\u0007" + JSON.stringify({ answer: "3", confidence: 0.5 }) },
          finish_reason: "stop",
        },
      ],
    });
    ctrlServer = await startServer((_req, res) => void res.writeHead(200, { "content-type": "application/json" }).end(ctrl));
  }, 240_000);
  afterAll(async () => {
    await hugeServer?.close();
    await ctrlServer?.close();
  });

  it("has at least 51 rows (100 with the service's 49)", () => {
    expect(CORPUS.length).toBeGreaterThanOrEqual(51);
    expect(new Set(CORPUS.map((c) => c.name)).size).toBe(CORPUS.length);
  });

  it("the config file's out key names the run directory (the docs promise it)", async () => {
    const dir = join(root, "config-out");
    mkdirSync(dir);
    writeFileSync(join(dir, "cfg.json"), json({ out: "from-config", limit: 1, paradigms: ["single"], sources: ["gt"], labels: ["oracle"], baseline: "none" }));
    const r = await esi3dAsync(["run", "--config", join(dir, "cfg.json")], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    expect(
      readFileSync(join(dir, "from-config", "items.jsonl"), "utf8")
        .trim()
        .split("\n"),
    ).toHaveLength(1);
  }, 120_000);

  describe.concurrent("rows", () => {
    CORPUS.forEach((c, i) => {
      it(c.name, async () => {
        const dir = join(root, `case-${String(i).padStart(3, "0")}`);
        mkdirSync(dir);
        for (const [f, content] of Object.entries(c.files ?? {})) writeFileSync(join(dir, f), content);
        c.setup?.(dir);
        const before = listing(dir);
        const opts = { cwd: dir, env: { ESI3D_DEBUG: undefined, ...c.env }, timeoutMs: 60_000 };
        const r: { code: number | null; stdout: string; stderr: string; rssMiB?: number } = c.maxRssMiB
          ? await esi3dMeasured(c.args(dir), opts)
          : await esi3dAsync(c.args(dir), opts);
        const said = r.stderr + r.stdout;
        expect(r.code, said).toBe(c.code);
        for (const m of c.mentions) expect(said, `message should match ${m}`).toMatch(m);
        for (const m of c.absent ?? []) expect(said, `output should not match ${m}`).not.toMatch(m);
        expect(said).not.toMatch(LEAK);
        if (c.maxRssMiB) expect(r.rssMiB, "peak memory (MiB)").toBeLessThan(c.maxRssMiB);
        for (const p of c.creates ?? []) expect(existsSync(join(dir, p)), `${p} written`).toBe(true);
        expect(without(listing(dir), c.creates ?? []), "nothing else written, nothing destroyed").toEqual(without(before, c.creates ?? []));
        c.after?.(dir);
      }, 60_000);
    });
  });
});
