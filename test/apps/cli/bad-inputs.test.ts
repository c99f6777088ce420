/**
 * The command line's bad-input corpus (issue 13; the kinds of case of reliability-audit.md §1 and its appendix):
 * task files, bundles, config files, flags, graphs for `ask`, run directories. Every row runs the built CLI
 * in a fresh folder and asserts the exit code, that the message names the file and the field (or flag), that no
 * stack trace appears, and that nothing is left behind: the folder holds exactly what the row put there.
 * Together with the service's corpus (test/apps/service/bad-requests.test.ts) this is the audit's table kept
 * in the suite.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { esi3dAsync, REPO_ROOT } from "./helpers.js";

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
}

const json = (v: unknown) => JSON.stringify(v);
const withTask = (edit: (t: Json) => void): string => {
  const t = task();
  edit(t);
  return json(t);
};
const render = (file = "task.json") => (d: string) => ["render", "--tasks", join(d, file), "--paradigm", "single", "--out", join(d, "out")];
const runWith = (...extra: string[]) => (d: string) => ["run", "--limit", "1", "--paradigm", "single", "--source", "gt", "--out", join(d, "r"), ...extra];
const cfgRun = (content: string): Pick<Case, "files" | "args"> => ({ files: { "cfg.json": content }, args: (d) => ["run", "--config", join(d, "cfg.json"), "--limit", "1", "--out", join(d, "r")] });

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
  { name: "task_id with a slash", files: { "task.json": withTask((t) => (t.task_id = "a/../../b")) }, args: render(), code: 2, mentions: [/task\.json/, /task_id/] },
  { name: "task_id hidden ('.x')", files: { "task.json": withTask((t) => (t.task_id = ".x")) }, args: render(), code: 2, mentions: [/task\.json/, /task_id/] },
  { name: "task_id of 200 characters", files: { "task.json": withTask((t) => (t.task_id = "a".repeat(200))) }, args: render(), code: 2, mentions: [/task\.json/, /task_id/] },
  { name: "wrong schema tag", files: { "task.json": withTask((t) => (t.schema = "esi3d-task/9")) }, args: render(), code: 2, mentions: [/task\.json/, /schema/] },
  { name: "unknown subcategory", files: { "task.json": withTask((t) => (t.subcategory = "telepathy")) }, args: render(), code: 2, mentions: [/task\.json/, /subcategory/] },
  { name: "objects is not an array", files: { "task.json": withTask((t) => (t.objects = "many")) }, args: render(), code: 2, mentions: [/task\.json/, /objects/] },
  { name: "position holds a string", files: { "task.json": withTask((t) => (objs(t)[0]!.position = [0, "x", 0])) }, args: render(), code: 2, mentions: [/task\.json/, /objects\.0\.position/] },
  { name: "position 1e999 (Infinity)", files: { "task.json": withTask((t) => (objs(t)[0]!.position = [0, 0, 0])).replace('"position":[0,0,0]', '"position":[1e999,0,0]') }, args: render(), code: 2, mentions: [/task\.json/, /objects\.0\.position/] },
  { name: "object id in the reserved range", files: { "task.json": withTask((t) => (objs(t)[0]!.id = 5)) }, args: render(), code: 2, mentions: [/task\.json/, /objects\.0\.id/] },
  { name: "negative extent (L3)", files: { "task.json": withTask((t) => (objs(t)[1]!.extent = [0.1, -0.2, 0.1])) }, args: render(), code: 2, mentions: [/task\.json/, /objects\.1\.extent/] },
  { name: "zero extent", files: { "task.json": withTask((t) => (objs(t)[1]!.extent = [0, 0.1, 0.1])) }, args: render(), code: 2, mentions: [/task\.json/, /objects\.1\.extent/] },
  { name: "zero quaternion (L3)", files: { "task.json": withTask((t) => (objs(t)[1]!.orientation = { x: 0, y: 0, z: 0, w: 0 })) }, args: render(), code: 2, mentions: [/task\.json/, /objects\.1\.orientation/] },
  { name: "quaternion of norm 2", files: { "task.json": withTask((t) => (objs(t)[1]!.orientation = { x: 0, y: 0, z: 0, w: 2 })) }, args: render(), code: 2, mentions: [/task\.json/, /objects\.1\.orientation/, /unit quaternion/] },
  { name: "object outside the room (L3)", files: { "task.json": withTask((t) => (objs(t)[1]!.position = [40, 0, 0.1])) }, args: render(), code: 2, mentions: [/task\.json/, /objects\.1\.position/, /outside the room/] },
  { name: "two intersecting objects (L3)", files: { "task.json": withTask((t) => (objs(t)[4]!.position = [...(objs(t)[3]!.position as number[])])) }, args: render(), code: 2, mentions: [/task\.json/, /objects\.3/, /objects 19 and 20 intersect/] },
  {
    name: "an object inside the sofa (not a container)",
    files: { "task.json": withTask((t) => {
      const sofa = objs(t).find((o) => o.category === "sofa")!;
      objs(t)[4]!.position = [(sofa.position as number[])[0]!, (sofa.position as number[])[1]!, 0.3];
    }) },
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
  { name: "camera 1 px wide", files: { "task.json": withTask((t) => ((t.camera as Json).width = 1)) }, args: render(), code: 2, mentions: [/task\.json/, /camera\.width/] },
  { name: "negative room size", files: { "task.json": withTask((t) => ((t.room as Json).size = [-5, 4])) }, args: render(), code: 2, mentions: [/task\.json/, /room\.size/] },
  { name: "unknown answer format", files: { "task.json": withTask((t) => (t.answer_format = "essay")) }, args: render(), code: 2, mentions: [/task\.json/, /answer_format/] },
  { name: "an unknown action in the trajectory", files: { "task.json": withTask((t) => (t.action_trajectory = ["turn_left", "fly"])) }, args: (d) => ["render", "--tasks", join(d, "task.json"), "--paradigm", "gt", "--out", join(d, "out")], code: 2, mentions: [/task\.json/, /action_trajectory\.1/, /expected one of move_forward, .*turn_down, got "fly"/] },
  { name: "stop in the trajectory (it ends episodes; a trajectory replays moves)", files: { "task.json": withTask((t) => (t.action_trajectory = ["stop"])) }, args: render(), code: 2, mentions: [/task\.json/, /action_trajectory\.0/, /got "stop"/] },
  {
    name: "a suite whose task has an unknown action: no run directory",
    setup: (d) => {
      mkdirSync(join(d, "suite"));
      writeFileSync(join(d, "suite", "t.json"), withTask((t) => (t.action_trajectory = ["Move Forward"])));
    },
    args: (d) => ["run", "--suite", join(d, "suite"), "--paradigm", "gt,active", "--source", "gt", "--out", join(d, "r")],
    code: 2,
    mentions: [/t\.json/, /action_trajectory\.0/, /got "Move Forward"/],
  },
  { name: "task path does not exist", args: render("nope.json"), code: 2, mentions: [/nope\.json/, /no such file/] },
  { name: "task directory without task files", setup: (d) => mkdirSync(join(d, "empty")), args: (d) => ["render", "--tasks", join(d, "empty"), "--out", join(d, "out")], code: 2, mentions: [/empty/, /no task files/] },
  {
    name: "a suite with a '..' task id: no run directory (M2, M6)",
    setup: (d) => {
      mkdirSync(join(d, "suite"));
      writeFileSync(join(d, "suite", "t.json"), withTask((t) => (t.task_id = "..")));
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
  { name: "config explorer greedy", ...cfgRun(json({ paradigms: ["active"], explorer: "greedy" })), code: 2, mentions: [/cfg\.json/, /explorer/, /"nbv"\|"verify"\|"random"/] },
  { name: "config invalidAction skip", ...cfgRun(json({ paradigms: ["active"], invalidAction: "skip" })), code: 2, mentions: [/cfg\.json/, /invalidAction/, /"reprompt"\|"forward"/] },
  { name: "config file missing", args: (d) => ["run", "--config", join(d, "none.json"), "--out", join(d, "r")], code: 2, mentions: [/none\.json/, /no such file/] },
  { name: "config is a directory", setup: (d) => mkdirSync(join(d, "cfgdir")), args: (d) => ["run", "--config", join(d, "cfgdir"), "--out", join(d, "r")], code: 2, mentions: [/cfgdir/, /directory/] },
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
  { name: "--base-url not a URL (F27)", args: runWith("--reasoner", "openai:m", "--base-url", "not a url"), env: { OPENAI_API_KEY: "x" }, code: 2, mentions: [/--base-url/] },
  { name: "--timeout 0", args: runWith("--timeout", "0"), code: 2, mentions: [/--timeout/] },
  { name: "--item-deadline 0", args: runWith("--item-deadline", "0"), code: 2, mentions: [/--item-deadline/] },
  { name: "--max-retries 99", args: runWith("--max-retries", "99"), code: 2, mentions: [/--max-retries/] },
  { name: "--max-connections 0", args: runWith("--max-connections", "0"), code: 2, mentions: [/--max-connections/] },
  { name: "missing OPENAI_API_KEY: fails before any work (M3, M6)", args: runWith("--reasoner", "openai:gpt-4o"), env: NO_KEYS, code: 2, mentions: [/OPENAI_API_KEY/] },
  { name: "missing GEMINI_API_KEY", args: runWith("--reasoner", "gemini:gemini-2.5-flash"), env: NO_KEYS, code: 2, mentions: [/GEMINI_API_KEY/] },
  { name: "--out is a file (F10)", files: { afile: "x" }, args: (d) => ["run", "--limit", "1", "--out", join(d, "afile")], code: 2, mentions: [/afile/] },
  { name: "--out below a file (ENOTDIR)", files: { afile: "x" }, args: (d) => ["run", "--limit", "1", "--out", join(d, "afile", "sub")], code: 2, mentions: [/afile/] },
  { name: "--resume where there is no run (F13)", args: runWith("--resume"), code: 2, mentions: [/--resume/] },
  { name: "generate --seed ../x", args: (d) => ["generate", "--seed", "../x", "--out", join(d, "t")], code: 2, mentions: [/--seed/] },
  { name: "generate --per-subcategory 0", args: (d) => ["generate", "--per-subcategory", "0", "--out", join(d, "t")], code: 2, mentions: [/--per-subcategory/] },
  { name: "generate --subcategories telepathy", args: (d) => ["generate", "--subcategories", "telepathy", "--out", join(d, "t")], code: 2, mentions: [/--subcategories/, /telepathy/] },
  { name: "generate --out is a file", files: { afile: "x" }, args: (d) => ["generate", "--per-subcategory", "1", "--out", join(d, "afile")], code: 2, mentions: [/afile/] },
  { name: "render --paradigm nope", files: { "task.json": json(task()) }, args: (d) => ["render", "--tasks", join(d, "task.json"), "--paradigm", "nope", "--out", join(d, "out")], code: 2, mentions: [/--paradigm/] },
  { name: "render --out is a file", files: { "task.json": json(task()), afile: "x" }, args: (d) => ["render", "--tasks", join(d, "task.json"), "--out", join(d, "afile")], code: 2, mentions: [/afile/] },
  { name: "graph without -o", args: () => ["graph", bundleDir], code: 2, mentions: [/--out/] },
  { name: "graph -o names a directory (EISDIR)", setup: (d) => mkdirSync(join(d, "gdir")), args: (d) => ["graph", bundleDir, "-o", join(d, "gdir")], code: 2, mentions: [/gdir/, /directory/] },
  { name: "graph -o below a file (ENOTDIR)", files: { afile: "x" }, args: (d) => ["graph", bundleDir, "-o", join(d, "afile", "g.json")], code: 2, mentions: [/afile/] },
  { name: "graph --diagnosis below a file", files: { afile: "x" }, args: (d) => ["graph", bundleDir, "-o", join(d, "g.json"), "--diagnosis", join(d, "afile", "d.json")], code: 2, mentions: [/afile/] },
  { name: "graph --ply below a file", files: { afile: "x" }, args: (d) => ["graph", bundleDir, "-o", join(d, "g.json"), "--ply", join(d, "afile", "c.ply")], code: 2, mentions: [/afile/] },
  { name: "graph --conceptgraphs names a file", files: { afile: "x" }, args: (d) => ["graph", bundleDir, "-o", join(d, "g.json"), "--conceptgraphs", join(d, "afile")], code: 2, mentions: [/afile/, /not a directory/] },
  { name: "graph of a bundle that does not exist", args: (d) => ["graph", join(d, "nope"), "-o", join(d, "g.json")], code: 2, mentions: [/nope/] },
  { name: "points --conf-threshold -1", args: (d) => ["points", bundleDir, "--conf-threshold", "-1", "-o", join(d, "p.ply")], code: 2, mentions: [/--conf-threshold/] },
  { name: "points -o names a directory", setup: (d) => mkdirSync(join(d, "pdir")), args: (d) => ["points", bundleDir, "-o", join(d, "pdir")], code: 2, mentions: [/pdir/] },
  { name: "contact-sheet -o below a file", files: { afile: "x" }, args: (d) => ["contact-sheet", bundleDir, "-o", join(d, "afile", "s.png")], code: 2, mentions: [/afile/] },
  { name: "run --max-steps 0", args: runWith("--paradigm", "active", "--max-steps", "0"), code: 2, mentions: [/--max-steps: expected an integer in \[1, 500\], got "0"/] },
  { name: "run --min-steps -1", args: runWith("--paradigm", "active", "--min-steps", "-1"), code: 2, mentions: [/--min-steps: expected an integer in \[0, 500\]/] },
  { name: "run --threshold 1.01", args: runWith("--paradigm", "active", "--threshold", "1.01"), code: 2, mentions: [/--threshold: expected a number in \[0, 1\], got "1.01"/] },
  { name: "run --explorer greedy", args: runWith("--paradigm", "active", "--explorer", "greedy"), code: 2, mentions: [/--explorer: expected one of nbv, verify, random, got "greedy"/] },
  { name: "ablate --paradigm active --max-steps 0", args: (d) => ["ablate", "--paradigm", "active", "--max-steps", "0", "--out", join(d, "a")], code: 2, mentions: [/--max-steps: expected an integer in \[1, 500\], got "0"/] },
  { name: "ablate --threshold -0.5", args: (d) => ["ablate", "--paradigm", "active", "--threshold", "-0.5", "--out", join(d, "a")], code: 2, mentions: [/--threshold: expected a number in \[0, 1\]/] },
  { name: "ablate --explorer greedy", args: (d) => ["ablate", "--paradigm", "active", "--explorer", "greedy", "--out", join(d, "a")], code: 2, mentions: [/--explorer: expected one of nbv, verify, random, got "greedy"/] },
  { name: "ablate --invalid-action skip", args: (d) => ["ablate", "--paradigm", "active", "--invalid-action", "skip", "--out", join(d, "a")], code: 2, mentions: [/--invalid-action: expected one of reprompt, forward, got "skip"/] },
  { name: "ablate --noise 3.5 (the scale ends at 3)", args: (d) => ["ablate", "--noise", "3.5", "--out", join(d, "a")], code: 2, mentions: [/--noise/] },
  { name: "serve --token short", args: (d) => ["serve", "--port", "0", "--data", join(d, "data"), "--token", "abc"], code: 2, mentions: [/--token/] },
  { name: "serve --host 0.0.0.0 without a token", args: (d) => ["serve", "--port", "0", "--host", "0.0.0.0", "--data", join(d, "data")], env: { ESI3D_TOKEN: undefined }, code: 2, mentions: [/--host/, /--token/] },
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
  bundleCase("a view that is a symlink out of the bundle (B17)", (b) => {
    rmSync(join(b, "views", "000_rgb.png"));
    symlinkSync("/etc/hostname", join(b, "views", "000_rgb.png"));
  }, [/000_rgb\.png/]),
  bundleCase("a short depth file", (b) => writeFileSync(join(b, "views", "000_depth.f32"), Buffer.alloc(16)), [/000_depth/]),
  bundleCase("a truncated PNG", (b) => writeFileSync(join(b, "views", "000_rgb.png"), readFileSync(join(b, "views", "000_rgb.png")).subarray(0, 60)), [/000_rgb\.png/]),
  bundleCase("a view path naming a directory (B32)", (b) => {
    rmSync(join(b, "views", "000_rgb.png"));
    mkdirSync(join(b, "views", "000_rgb.png"));
  }, [/000_rgb\.png/]),
  bundleCase("no views", (b) => editManifest(b, (m) => (m.views = [])), [/bundle\.json/, /views/]),
];

/** A valid scene graph (the prompt tests' fixture) with one edit, and its task (audit A10, A12). */
const GOOD_GRAPH = join(REPO_ROOT, "test", "prompt", "fixtures", "spatial_distance-000.gt.graph.json");
const SPATIAL_TASK = join(REPO_ROOT, "fixtures", "tasks", "spatial_distance-000.json");
const withGraph = (edit: (g: Json) => void): string => {
  const g = JSON.parse(readFileSync(GOOD_GRAPH, "utf8")) as Json;
  edit(g);
  return json(g);
};
const askGraph = (d: string) => ["ask", join(d, "g.json"), "--task", SPATIAL_TASK];

const ASK_CASES: Case[] = [
  { name: "ask: a node with an absurd centroid (A10)", files: { "g.json": withGraph((g) => ((g.nodes as Json[])[0]!.centroid = [1e308, 0, 0])) }, args: askGraph, code: 2, mentions: [/g\.json/, /nodes\.0\.centroid/] },
  { name: "ask: a node without its box (A10)", files: { "g.json": withGraph((g) => delete (g.nodes as Json[])[0]!.box) }, args: askGraph, code: 2, mentions: [/g\.json/, /nodes\.0\.box/] },
  { name: "ask: a relation naming a node that does not exist (A12)", files: { "g.json": withGraph((g) => ((g.relations as Json[])[0]!.subject = "n999")) }, args: askGraph, code: 2, mentions: [/g\.json/, /relations\.0\.subject/, /n999/] },
  { name: "ask: graph file not JSON", files: { "g.json": "{x", "t.json": json(task()) }, args: (d) => ["ask", join(d, "g.json"), "--task", join(d, "t.json")], code: 2, mentions: [/g\.json/, /JSON/] },
  { name: "ask: graph format esi3d-graph/9", files: { "g.json": json({ format: "esi3d-graph/9" }), "t.json": json(task()) }, args: (d) => ["ask", join(d, "g.json"), "--task", join(d, "t.json")], code: 2, mentions: [/g\.json/, /format/] },
  { name: "ask: graph with only its format (A04)", files: { "g.json": json({ format: "esi3d-graph/1" }), "t.json": json(task()) }, args: (d) => ["ask", join(d, "g.json"), "--task", join(d, "t.json")], code: 2, mentions: [/g\.json/] },
  { name: "ask: nodes is a string (A05)", files: { "g.json": json({ format: "esi3d-graph/1", nodes: "many" }), "t.json": json(task()) }, args: (d) => ["ask", join(d, "g.json"), "--task", join(d, "t.json")], code: 2, mentions: [/g\.json/, /not a valid scene graph/] },
  { name: "ask: path does not exist", args: (d) => ["ask", join(d, "nope.json")], code: 2, mentions: [/nope\.json/] },
  { name: "ask: --task is not a task", files: { "g.json": json({ format: "esi3d-graph/1" }), "t.json": json({ format: "esi3d-bundle/1" }) }, args: (d) => ["ask", join(d, "g.json"), "--task", join(d, "t.json")], code: 2, mentions: [/t\.json|g\.json/] },
];

const RUN_DIR_CASES: Case[] = [
  { name: "compare: not a run directory", setup: (d) => (mkdirSync(join(d, "a")), mkdirSync(join(d, "b"))), args: (d) => ["compare", join(d, "a"), join(d, "b")], code: 2, mentions: [/\ba\b|\bb\b/, /not a run directory/] },
  { name: "inspect: a JSON file, not a directory", files: { "g.json": "{}" }, args: (d) => ["inspect", join(d, "g.json"), "-o", join(d, "page.html")], code: 2, mentions: [/g\.json/] },
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

const CORPUS: Case[] = [...TASK_CASES, ...CONFIG_CASES, ...FLAG_CASES, ...BUNDLE_CASES, ...ASK_CASES, ...RUN_DIR_CASES];
/** The service's corpus (test/apps/service/bad-requests.test.ts) has 49 rows; together at least the 100. */
export const CLI_CORPUS_SIZE = CORPUS.length;

function listing(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const f of readdirSync(d)) {
      const p = join(d, f);
      out.push(relative(dir, p));
      try {
        if (statSync(p).isDirectory()) walk(p);
      } catch {
        /* a dangling link the row made */
      }
    }
  };
  walk(dir);
  return out.sort();
}

describe("the CLI's bad-input corpus", () => {
  const root = mkdtempSync(join(tmpdir(), "esi3d-corpus-"));
  beforeAll(async () => {
    const r = await esi3dAsync(["render", "--tasks", FIXTURE_TASK, "--paradigm", "single", "--out", join(root, "bundles")]);
    expect(r.code, r.stderr).toBe(0);
    bundleDir = join(root, "bundles", "geometric_configuration-000", "single");
  }, 120_000);

  it("has at least 51 rows (100 with the service's 49)", () => {
    expect(CORPUS.length).toBeGreaterThanOrEqual(51);
    expect(new Set(CORPUS.map((c) => c.name)).size).toBe(CORPUS.length);
  });

  it("the config file's out key names the run directory (the docs promise it; audit C07)", async () => {
    const dir = join(root, "config-out");
    mkdirSync(dir);
    writeFileSync(join(dir, "cfg.json"), json({ out: "from-config", limit: 1, paradigms: ["single"], sources: ["gt"], labels: ["oracle"], baseline: "none" }));
    const r = await esi3dAsync(["run", "--config", join(dir, "cfg.json")], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(join(dir, "from-config", "items.jsonl"), "utf8").trim().split("\n")).toHaveLength(1);
  }, 120_000);

  describe.concurrent("rows", () => {
    CORPUS.forEach((c, i) => {
      it(c.name, async () => {
        const dir = join(root, `case-${String(i).padStart(3, "0")}`);
        mkdirSync(dir);
        for (const [f, content] of Object.entries(c.files ?? {})) writeFileSync(join(dir, f), content);
        c.setup?.(dir);
        const before = listing(dir);
        const r = await esi3dAsync(c.args(dir), { cwd: dir, env: { ESI3D_DEBUG: undefined, ...c.env }, timeoutMs: 60_000 });
        const said = r.stderr + r.stdout;
        expect(r.code, said).toBe(c.code);
        for (const m of c.mentions) expect(said, `message should match ${m}`).toMatch(m);
        expect(said).not.toMatch(LEAK);
        expect(listing(dir), "no partial output").toEqual(before);
      }, 60_000);
    });
  });
});
