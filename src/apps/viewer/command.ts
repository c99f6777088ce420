/**
 * `esi3d inspect BUNDLE | RUN_DIR`: the node table of a scene graph (each node's status against the truth),
 * and the 3D inspection page: written as one self-contained HTML file (-o), or every task of a run served on
 * localhost (--serve). Exports for other tools from the same data: --ply, --glb, --graph-json, --conceptgraphs
 * (docs/exports.md).
 * See docs/viewer.md.
 */
import type { Command, Option } from "commander";
import { SOURCES } from "../../../reconstruct/options.js";
import { InputError } from "../../../core/errors.js";
import { BundleInspection, RunInspection, type Inspection } from "./inspection.js";
import { exportGlb, exportGraphJson, exportPly } from "./export.js";
import { pageHtml } from "./page.js";
import { graphFile, isRunDir, openRun, type RunDir } from "./run.js";
import { readStoredGraph } from "../../eval/files.js";
import type { Variant } from "./types.js";
import { addSchemaFlags, intOption, parseSchemaFlags } from "../../../core/flags.js";
import { MIN_TOKEN_LENGTH, serverToken } from "../../../core/http/access.js";
import { readBundle } from "../../../core/bundle/io.js";
import { diagnosisTable } from "./diagnosisTable.js";
import { graphOfBundle, masksForBundle } from "../../../scenegraph/pipeline.js";
import { GRAPH_PIPELINE_FLAGS, GraphPipelineOptionsSchema, type GraphPipelineOptions } from "../../../scenegraph/pipelineOptions.js";
import { freeQuestionTask } from "../../../core/bundle/freeTask.js";

/** What the page shows as the question of a bundle without a task record (a scene of one's own). */
const NO_TASK_QUESTION = {
  question: '(no task record: a scene of one\'s own; esi3d ask BUNDLE --question "..." asks it one)',
  answer_format: "choice" as const,
  options: [],
};
import { PACKAGE_VERSION } from "../../../core/version.js";
import { checkWritable, writeFileAtomic } from "../../../core/fs.js";
import { checkOutputs, givenPath } from "../../../core/outputPaths.js";
import { CONCEPTGRAPHS_FILES, writeConceptGraphs } from "../../../scenegraph/export.js";
import { episodeTable, stepDetail } from "./episodeTable.js";
import { readPriceTable } from "../../eval/usage.js";

/** The viewer's default port: free of the usual dev servers (3000, 5173, 8000, 8080). */
export const DEFAULT_INSPECT_PORT = 8090;
/** Loopback only unless --host says otherwise: the page shows task data and reads files of the run. */
export const DEFAULT_INSPECT_HOST = "127.0.0.1";

interface InspectOpts extends Record<string, unknown> {
  source?: string;
  paradigm?: string;
  task?: string;
  out?: string;
  serve?: boolean;
  port: number;
  host: string;
  token?: string;
  ply?: string;
  glb?: string;
  graphJson?: string;
  conceptgraphs?: string;
  json?: boolean;
  step?: number;
  prices?: string;
}

const log = (line: string) => process.stderr.write(`inspect: ${line}\n`);
const exportsAsked = (opts: InspectOpts) => Boolean(opts.ply || opts.glb || opts.graphJson || opts.conceptgraphs);

/** Writes the page and the exports of an inspection; `keys` are the variants to embed. */
async function writeOutputs(
  insp: Inspection,
  keys: string[],
  opts: InspectOpts,
  tasks: Array<{ task_id: string; subcategory: string; href: string }>,
): Promise<void> {
  if (exportsAsked(opts)) {
    if (keys.length !== 1)
      throw new InputError(
        `--ply/--glb/--graph-json/--conceptgraphs export one graph: pass --paradigm and --source (this task has: ${keys.map((k) => k.replace("__", "/")).join(", ")})`,
      );
    if (opts.conceptgraphs) checkWritable(opts.conceptgraphs, "dir"); // before the graph is rebuilt
    const d = await insp.data(keys[0]!);
    if (opts.ply) {
      exportPly(d, opts.ply);
      process.stdout.write(`wrote ${opts.ply}: ${d.cloud.count} points coloured by node (binary PLY, uchar colours)\n`);
    }
    if (opts.glb) {
      await exportGlb(d, opts.glb);
      process.stdout.write(
        `wrote ${opts.glb}: cloud (${d.cloud.count} points) and ${d.graph.nodes.length} predicted + ${d.task.objects.length} true boxes (GLB, +Y up)\n`,
      );
    }
    if (opts.graphJson) {
      exportGraphJson(d, opts.graphJson);
      process.stdout.write(`wrote ${opts.graphJson}: graph and diagnosis (JSON)\n`);
    }
    if (opts.conceptgraphs) {
      writeConceptGraphs(opts.conceptgraphs, d.graph, d.cloud, d.members);
      process.stdout.write(
        `wrote ${opts.conceptgraphs}: ConceptGraphs object map (${CONCEPTGRAPHS_FILES.map}, ${d.graph.nodes.length} objects), ${CONCEPTGRAPHS_FILES.nodes}, ${CONCEPTGRAPHS_FILES.edges}\n`,
      );
    }
  }
  if (opts.out) {
    const variants: Variant[] = [];
    for (const k of keys) {
      const t = performance.now();
      const v = await insp.variant(k);
      variants.push(v);
      const what = v.episode
        ? `episode replayed (${v.episode.steps.length} steps, ${v.views.length} views${v.arm === "3d" ? ", the memory updated per view" : ""}) and checked against the record${v.arm === "3d" ? " and the stored graph" : ""}`
        : "cloud and graph rebuilt and checked";
      log(`${k.replace("__", "/")}: ${what} (${Math.round(performance.now() - t)} ms)`);
    }
    const meta = insp.meta({ mode: "file", api: null, tasks, initial: keys[0], only: keys, initialStep: opts.step ?? null });
    const html = await pageHtml(meta, variants);
    writeFileAtomic(opts.out, html); // makes the parent directory
    const shown = variants.map((v) => v.cloud.downsample.shown).reduce((a, b) => a + b, 0);
    const episodes2d = variants.filter((v) => v.arm === "2d").length;
    process.stdout.write(
      `wrote ${opts.out}: ${variants.length - episodes2d} graph(s)${episodes2d ? ` and the 2D arm's episode` : ""} of ${insp.task.task_id}, ${shown.toLocaleString()} points drawn, ${(Buffer.byteLength(html) / 1e6).toFixed(1)} MB (self-contained; open it in a browser)\n`,
    );
  }
}

async function inspectRun(dir: string, opts: InspectOpts): Promise<void> {
  if (opts.serve) return serve([dir], opts);
  if (opts.prices) throw new InputError("--prices: only with --serve (the log viewer's token costs)");
  const run: RunDir = openRun(dir);
  let taskId = opts.task;
  if (!taskId) {
    if (run.taskIds.length !== 1)
      throw new InputError(
        `${dir}: a run directory needs --task ID (or --serve for all ${run.taskIds.length} tasks); tasks: ${run.taskIds.slice(0, 6).join(", ")}${run.taskIds.length > 6 ? ", ..." : ""}`,
      );
    taskId = run.taskIds[0]!;
  }
  const insp = new RunInspection(run, taskId, PACKAGE_VERSION);
  const keys = insp.refs.filter((r) => (!opts.paradigm || r.paradigm === opts.paradigm) && (!opts.source || r.source === opts.source)).map((r) => r.key);
  if (keys.length === 0) insp.resolve(opts.paradigm, opts.source); // throws the error naming what exists
  if (opts.step !== undefined) checkStep(insp, keys, opts.step);
  if (opts.out || exportsAsked(opts)) return writeOutputs(insp, keys, opts, []);
  // no output asked for: the stored node tables and episodes (nothing recomputed)
  for (const k of keys) {
    const r = insp.refs.find((x) => x.key === k)!;
    const stored = r.arm === "3d" ? readStoredGraph(graphFile(run, taskId, r.paradigm, r.source)) : null;
    const record = r.steps !== null ? insp.episodeRecord(k) : null;
    if (opts.json) {
      process.stdout.write(JSON.stringify(record ? { diagnosis: stored?.diagnosis ?? null, episode: record.active } : stored!.diagnosis, null, 1) + "\n");
      continue;
    }
    if (stored && opts.step === undefined) process.stdout.write(diagnosisTable(stored.graph, stored.diagnosis) + "\n");
    if (record) process.stdout.write(opts.step !== undefined ? stepDetail(record, opts.step) : "\n" + episodeTable(record, `${r.paradigm}/${r.source}`) + "\n");
  }
}

/** --step names a step of every selected episode. */
function checkStep(insp: RunInspection, keys: string[], step: number): void {
  for (const k of keys) {
    const r = insp.refs.find((x) => x.key === k)!;
    if (r.steps === null)
      throw new InputError(
        `--step ${step}: only for an active episode (--paradigm active); ${r.paradigm}/${r.source} is a ${r.paradigm} view set, without steps`,
      );
    if (step > r.steps)
      throw new InputError(
        `--step ${step}: the episode ${r.paradigm}/${r.source} of ${insp.taskId} has ${r.steps} step(s); expected an integer in [1, ${r.steps}]`,
      );
  }
}

async function inspectBundle(dir: string, opts: InspectOpts, graphOptions: GraphPipelineOptions, masksGiven: boolean): Promise<void> {
  if (opts.serve) throw new InputError(`${dir}: --serve needs a run directory (esi3d run --out DIR); for a bundle, write a page with -o page.html`);
  if (opts.prices) throw new InputError("--prices: only with --serve of a run (the log viewer's token costs)");
  if (opts.task) throw new InputError(`--task: only for a run directory; ${dir} is a frame bundle`);
  if (opts.step !== undefined) throw new InputError(`--step: only for an active episode of a run directory; ${dir} is a frame bundle`);
  const source = opts.source ?? "gt";
  if (!(SOURCES as readonly string[]).includes(source)) throw new InputError(`--source: expected one of ${SOURCES.join(", ")} for a bundle, got "${source}"`);
  const bundle = readBundle(dir);
  const m0 = masksForBundle(bundle, graphOptions, masksGiven);
  if (m0.note) log(m0.note);
  const r = await graphOfBundle(bundle, { ...m0.options, source: source as GraphPipelineOptions["source"] });
  for (const note of r.notes) log(note);
  if (opts.paradigm && opts.paradigm !== bundle.manifest.paradigm)
    throw new InputError(`--paradigm ${opts.paradigm}: the bundle ${dir} holds ${bundle.manifest.paradigm} views`);
  if (!(opts.out || exportsAsked(opts))) {
    process.stdout.write(opts.json ? JSON.stringify(r.diagnosis ?? r.graph, null, 1) + "\n" : diagnosisTable(r.graph, r.diagnosis));
    return;
  }
  const insp = new BundleInspection(
    {
      paradigm: bundle.manifest.paradigm,
      source,
      task: bundle.manifest.task ?? { ...freeQuestionTask(bundle.manifest, NO_TASK_QUESTION), answer: "(none: no task record)" },
      bundle,
      cloud: r.cloud,
      graph: r.graph,
      members: r.members,
      diagnosis: r.diagnosis,
      timings_ms: {},
    },
    PACKAGE_VERSION,
  );
  await writeOutputs(insp, [insp.refs[0]!.key], opts, []);
}

async function serve(dirs: string[], opts: InspectOpts): Promise<void> {
  // the access rule first: a server reachable from other machines needs a token (as `esi3d serve`)
  const token = serverToken(opts.host, opts.token);
  if (opts.step !== undefined)
    throw new InputError("--step: the served pages have their own step control; leave out --step with --serve (or write one page with -o)");
  if (opts.out || exportsAsked(opts))
    throw new InputError("--serve serves pages and exports over HTTP; leave out -o/--ply/--glb/--graph-json/--conceptgraphs (or drop --serve)");
  const runs = dirs.map((d) => openRun(d));
  const prices = opts.prices ? { table: readPriceTable(opts.prices), file: opts.prices } : null;
  // the server's packages (fastify) load only when one starts, not for `esi3d --help` or an export
  const { serveRun } = await import("./server.js");
  const { app, url } = await serveRun({
    runs,
    version: PACKAGE_VERSION,
    host: opts.host,
    port: opts.port,
    token,
    prices,
    log: process.env.ESI3D_INSPECT_LOG ? log : undefined,
  }).catch((e: NodeJS.ErrnoException) => {
    if (e.code === "EADDRINUSE") throw new InputError(`--port ${opts.port}: already in use on ${opts.host}; choose another --port (0 picks a free one)`);
    if (e.code === "EADDRNOTAVAIL" || e.code === "ENOTFOUND") throw new InputError(`--host ${opts.host}: not an address of this machine`);
    throw e;
  });
  const what =
    runs.length === 1
      ? `${runs[0]!.taskIds.length} task(s) of ${runs[0]!.dir}`
      : `${runs.length} runs (${runs.map((r) => r.dir).join(", ")}), each below ${url}run/<name>/`;
  process.stdout.write(`serving ${what} at ${url} (Ctrl-C to stop); every item's prompt, replies and answer at ${url}items\n`);
  if (token) process.stdout.write(`a token is required: send Authorization: Bearer <token>, or open ${url}?token=<token> once in a browser\n`);
  await new Promise<void>((resolve) => {
    const stop = () => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      app.close().then(
        () => resolve(),
        () => resolve(),
      );
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
  });
}

export function registerInspect(program: Command): void {
  const cmd = addSchemaFlags(
    program
      .command("inspect")
      .description(
        "print a scene graph node by node (status, evidence, the true object each node matches, then the quality metrics) for a frame bundle or a run's task; write its 3D inspection page (-o page.html), serve every task of a run (--serve), or export it (--ply, --glb, --graph-json, --conceptgraphs). See docs/viewer.md, docs/exports.md",
      )
      .argument("<dir...>", "frame bundle directory, or run directory (esi3d run --out DIR); with --serve, one run directory or several"),
    GraphPipelineOptionsSchema,
    GRAPH_PIPELINE_FLAGS,
  );
  // --source selects a run's graph by its source label (gt, noisy, noisy@0.5, vggt) as well as a bundle's cloud source
  const source = cmd.options.find((o: Option) => o.long === "--source")!;
  source.description = `point-cloud source: for a bundle ${SOURCES.join(" | ")} (default gt); for a run, which of its graphs (default: all)`;
  source.defaultValue = undefined;
  source.argChoices = undefined;
  source.parseArg = undefined;
  cmd.setOptionValueWithSource("source", undefined, "default");
  cmd
    .option("--task <id>", "run directory: the task to inspect")
    .option("--paradigm <p>", "run directory: the view set (single, multi, gt, active; default: all)")
    .option("--step <k>", "run directory, paradigm active: the step the page opens at, or (without -o) the step to print in full", intOption("--step", 1))
    .option("-o, --out <file>", "write the inspection page: one self-contained HTML file (opens offline)")
    .option("--serve", "run directory: serve every task's page on a local HTTP server, with an index of tasks by how wrong their graphs are")
    .option("--port <n>", "--serve: TCP port (0 = any free one)", intOption("--port", 0, 65535), DEFAULT_INSPECT_PORT)
    .option("--host <addr>", "--serve: address to bind; anything but loopback requires --token", DEFAULT_INSPECT_HOST)
    .option(
      "--token <token>",
      `--serve: token every request must carry (at least ${MIN_TOKEN_LENGTH} characters; a browser opens /?token=<token> once); default $ESI3D_TOKEN`,
    )
    .option("--ply <file>", 'export the cloud coloured by node, each point\'s node in the int property "node" (binary PLY)')
    .option("--glb <file>", "export the cloud and the predicted and true boxes (GLB, converted to glTF's +Y up)")
    .option("--graph-json <file>", "export the graph and its diagnosis (JSON)")
    .option(
      "--conceptgraphs <dir>",
      `export the graph for ConceptGraphs' scripts: its object map (${CONCEPTGRAPHS_FILES.map}), ${CONCEPTGRAPHS_FILES.nodes}, ${CONCEPTGRAPHS_FILES.edges}`,
    )
    .option("--json", "print the diagnosis as JSON instead of tables")
    .option(
      "--prices <file>",
      "--serve: a price table (JSON, esi3d-prices/1: docs/logs.md) for the log viewer's token costs; without one costs are unknown (esi3d assumes no price)",
    )
    .action(async (dirs: string[], opts: InspectOpts) => {
      // a run's items.jsonl, config.json or graphs are never written over by its own page or exports
      checkOutputs(
        [...dirs.map((d) => ({ what: "<dir>", path: d })), ...givenPath("--prices", opts.prices)],
        [
          ...givenPath("--out", opts.out),
          ...givenPath("--ply", opts.ply),
          ...givenPath("--glb", opts.glb),
          ...givenPath("--graph-json", opts.graphJson),
          ...givenPath("--conceptgraphs", opts.conceptgraphs),
        ],
      );
      if (dirs.length > 1) {
        if (!opts.serve) throw new InputError(`${dirs.join(" ")}: several directories only with --serve (one server for several runs); without it inspect one`);
        const notRun = dirs.find((d) => !isRunDir(d));
        if (notRun) throw new InputError(`${notRun}: not a run directory (config.json and graphs/); --serve with several directories serves runs`);
        return serve(dirs, opts);
      }
      const dir = dirs[0]!;
      if (isRunDir(dir)) await inspectRun(dir, opts);
      else
        await inspectBundle(
          dir,
          opts,
          parseSchemaFlags(cmd, GraphPipelineOptionsSchema, GRAPH_PIPELINE_FLAGS, { source: "gt" }),
          cmd.getOptionValueSource("masks") === "cli",
        );
    });
}
