/**
 * Keeps docs/protocol.md in step with the code: the sections between `<!-- generated:NAME -->` and
 * `<!-- /generated:NAME -->` are produced here from the zod schemas (z.toJSONSchema), the route table and
 * the named limits. test/src/apps/service/docs.test.ts fails when the file is stale.
 *
 *   node dist/src/apps/service/protocolDoc.js            rewrite docs/protocol.md
 *   node dist/src/apps/service/protocolDoc.js --check    exit 1 if it is stale
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import * as z from "zod";
import * as L from "./limits.js";
import { ROUTE_LIST } from "./routes.js";
import {
  ActionQuerySchema,
  ActionResponseSchema,
  EpisodeOptionsSchema,
  ErrorBodySchema,
  FinishResponseSchema,
  SessionFinishSchema,
  SessionOpenSchema,
  SessionStatusSchema,
  ViewHeaderSchema,
  ViewResponseSchema,
} from "./schemas.js";
import { VIEW_CONTENT_TYPE, VIEW_MAGIC, VIEW_PREAMBLE_BYTES } from "./viewCodec.js";

/** docs/protocol.md, from dist/src/apps/service (the built script), src/apps/service (tests) or dist/cli (the CLI bundle). */
export const PROTOCOL_DOC =
  ["../../../../docs/protocol.md", "../../../docs/protocol.md", "../../docs/protocol.md"]
    .map((rel) => fileURLToPath(new URL(rel, import.meta.url)))
    .find((f) => existsSync(f)) ?? fileURLToPath(new URL("../../../../docs/protocol.md", import.meta.url));

function schemaBlock(s: z.ZodType, io: "input" | "output", replaceTask = false): string {
  const json = z.toJSONSchema(s, { io, unrepresentable: "any" }) as { properties?: Record<string, { description?: string }> };
  // the task record has its own published schema; refer to it instead of repeating 200 lines
  if (replaceTask && json.properties?.task) json.properties.task = { $ref: "task.schema.json", description: json.properties.task.description } as never;
  return "```json\n" + JSON.stringify(json, null, 2) + "\n```";
}

const mib = (b: number) => (b >= 1024 ** 3 ? `${b / 1024 ** 3} GiB` : b >= 1024 ** 2 ? `${b / 1024 ** 2} MiB` : `${b / 1024} KiB`);

function limitsTable(): string {
  const rows: Array<[string, string, string]> = [
    ["JSON request body", mib(L.JSON_BODY_LIMIT_BYTES), "413 too_large"],
    ["top-level keys of a JSON request body", String(L.MAX_BODY_KEYS), "400 body"],
    ["one view upload (whole binary body)", mib(L.VIEW_BODY_LIMIT_BYTES), "413 too_large (from Content-Length, before the body is read)"],
    ["JSON camera header inside a view", mib(L.MAX_VIEW_HEADER_BYTES), "400 views.N.header"],
    ["pixels per image (width x height)", `${L.MAX_IMAGE_PIXELS} (2048 x 2048)`, "400 body.image at session open"],
    ["views per session", String(L.MAX_VIEWS_PER_SESSION), "400 params.n"],
    ["bytes held by one open session", mib(L.MAX_SESSION_BYTES), "413 too_large"],
    ["open sessions", String(L.MAX_OPEN_SESSIONS), "503 busy + Retry-After"],
    ["idle time before an open session is deleted", `${L.SESSION_TTL_MS / 60000} min`, "404 afterwards"],
    ["time to receive one request", `${L.REQUEST_RECEIVE_TIMEOUT_MS / 1000} s`, "408 (connection closed)"],
    ["CPU jobs at once (graphs, finishing, offline answers)", "`--cpu-jobs` (default: cores - 1, at least 1)", "wait in the queue"],
    ["CPU jobs waiting", `\`--queue\` (default ${L.DEFAULT_CPU_QUEUE})`, "503 busy + Retry-After"],
    ["one CPU job", `${L.CPU_JOB_TIMEOUT_MS / 60000} min`, "504 timeout (the worker is cancelled)"],
    ["LLM answers at once / waiting", `${L.LLM_MAX_IN_FLIGHT} / ${L.LLM_QUEUE}`, "503 busy + Retry-After"],
    ["evaluation runs at once", String(L.MAX_ACTIVE_RUNS), "503 busy + Retry-After"],
    [
      "tasks one run plans (perSubcategory x subcategories, or the stored tasks, cut at limit)",
      String(L.MAX_RUN_TASKS),
      "400 body.perSubcategory or body.limit",
    ],
    ["items one run plans (tasks x paradigms x arms)", String(L.MAX_RUN_ITEMS), "400 body"],
    ["DELETE /v1/runs/{id} waits for the run to stop", `${L.CANCEL_WAIT_MS / 1000} s`, "202 with status still running; it ends as cancelled"],
    [
      "after SIGTERM or SIGINT: runs finish their items in flight / the process exits",
      `${L.SHUTDOWN_GRACE_MS / 1000} s / within ${L.SHUTDOWN_LIMIT_MS / 1000} s`,
      "runs still going are recorded interrupted (resume completes them)",
    ],
    ["items per page (GET /v1/runs/{id}/items)", `default ${L.DEFAULT_PAGE_SIZE}, at most ${L.MAX_PAGE_SIZE}`, "400 query.limit"],
    ["active episodes at once", String(L.MAX_ACTIVE_EPISODES), "503 busy + Retry-After at session open"],
    ["steps of an active episode (episode.maxSteps)", `${L.MAX_VIEWS_PER_SESSION - 1} (one view each after view 0)`, "400 body.episode.maxSteps"],
    [
      "wait for the view an active episode needs (view_timeout_s)",
      `default ${L.DEFAULT_VIEW_TIMEOUT_S} s, ${L.MIN_VIEW_TIMEOUT_S} s to ${L.MAX_VIEW_TIMEOUT_S / 60} min`,
      "the episode fails (next: failed)",
    ],
    ["long poll of GET .../action (wait)", `default ${L.DEFAULT_ACTION_WAIT_S} s, at most ${L.MAX_ACTION_WAIT_S} s`, "400 query.wait; past it: next: wait"],
  ];
  return ["| limit | value | beyond it |", "|---|---|---|", ...rows.map((r) => `| ${r.join(" | ")} |`)].join("\n");
}

function endpointsTable(): string {
  const rows = ROUTE_LIST.map(
    (r) =>
      `| \`${r.method}\` | \`${r.url.replace(/:([A-Za-z_]+)/g, "{$1}")}\` | ${r.status} | ${r.auth ? "" : "no auth; "}${r.summary.replace(/\|/g, "\\|")} |`,
  );
  return ["| method | path | success | what it does |", "|---|---|---|---|", ...rows].join("\n");
}

function layoutTable(): string {
  return [
    "| offset | bytes | field |",
    "|---|---|---|",
    `| 0 | 8 | magic, ASCII \`${VIEW_MAGIC}\` |`,
    "| 8 | 4 | uint32 LE `H`: bytes of the JSON header |",
    "| 12 | 4 | uint32 LE `A`: bytes of the RGB PNG |",
    "| 16 | 4 | uint32 LE `D`: bytes of the depth map, exactly width x height x 4 |",
    "| 20 | 4 | uint32 LE `I`: bytes of the instance-id PNG |",
    `| ${VIEW_PREAMBLE_BYTES} | H | JSON header, UTF-8 (schema below): intrinsics, extrinsic, action |`,
    `| ${VIEW_PREAMBLE_BYTES} + H | A | RGB PNG: 8-bit RGB (colour type 2) or RGBA (6), width x height, not interlaced |`,
    `| ${VIEW_PREAMBLE_BYTES} + H + A | D | depth: float32 little-endian, row-major, metric z-depth (m); 0 or non-finite = no measurement |`,
    `| ${VIEW_PREAMBLE_BYTES} + H + A + D | I | instance ids: 16-bit (or 8-bit) greyscale PNG (colour type 0), width x height; 0 = none |`,
    "",
    `The body is exactly ${VIEW_PREAMBLE_BYTES} + H + A + D + I bytes, sent with \`Content-Type: ${VIEW_CONTENT_TYPE}\` (\`application/octet-stream\` is accepted too).`,
  ].join("\n");
}

export const GENERATED: Record<string, () => string> = {
  endpoints: endpointsTable,
  layout: layoutTable,
  limits: limitsTable,
  "schema-session-open": () => schemaBlock(SessionOpenSchema, "input", true),
  "schema-session": () => schemaBlock(SessionStatusSchema, "output"),
  "schema-view-header": () => schemaBlock(ViewHeaderSchema, "input"),
  "schema-view-response": () => schemaBlock(ViewResponseSchema, "output"),
  "schema-finish": () => schemaBlock(SessionFinishSchema, "input"),
  "schema-finish-response": () => schemaBlock(FinishResponseSchema, "output"),
  "schema-episode": () => schemaBlock(EpisodeOptionsSchema, "input"),
  "schema-action-query": () => schemaBlock(ActionQuerySchema, "input"),
  "schema-action": () => schemaBlock(ActionResponseSchema, "output"),
  "schema-error": () => schemaBlock(ErrorBodySchema, "output"),
};

/** The document with every generated section replaced by its current content. */
export function renderProtocolDoc(text: string): string {
  let out = text;
  for (const [name, make] of Object.entries(GENERATED)) {
    const re = new RegExp(`(<!-- generated:${name} -->)[\\s\\S]*?(<!-- /generated:${name} -->)`);
    if (!re.test(out)) throw new Error(`docs/protocol.md: no section <!-- generated:${name} --> ... <!-- /generated:${name} -->`);
    out = out.replace(re, (_m, a: string, b: string) => `${a}\n${make()}\n${b}`);
  }
  return out;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const text = readFileSync(PROTOCOL_DOC, "utf8");
  const next = renderProtocolDoc(text);
  if (process.argv.includes("--check")) {
    if (next !== text) {
      process.stderr.write(`${PROTOCOL_DOC} is stale: run node dist/src/apps/service/protocol-doc.js\n`);
      process.exitCode = 1;
    }
  } else if (next !== text) {
    writeFileSync(PROTOCOL_DOC, next);
    process.stdout.write(`wrote ${PROTOCOL_DOC}\n`);
  }
}
