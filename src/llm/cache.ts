/**
 * The LLM response cache: one SQLite file (better-sqlite3, WAL mode so that several processes of one run can
 * share it), keyed by a sha256 of everything that determines the reply.
 *
 * Rules (after lmms-eval's response cache):
 * - a request is cached when it is deterministic (temperature 0 or unset; unset is keyed apart from 0, since
 *   the provider's default may differ) or when it is a numbered sample (ChatRequest.sample, `esi3d run`): sample i
 *   of a request is one fixed draw, keyed apart from every other sample, so a rerun replays the same k samples and
 *   no two samples of an item share an entry. An unnumbered request at temperature > 0 is never cached (each call
 *   is a fresh draw);
 * - an empty or whitespace-only reply is never stored, and a failure never reaches the cache;
 * - the key covers provider, model, base URL, generation parameters (temperature, output limit and the body field
 *   that carries it), the sample index when it is above 0, system text, user text and a sha256 of every image
 *   (with its MIME type), in order; nothing else (timeouts and retry settings do not change a reply). Sample 0 is
 *   keyed as the unnumbered request, so a greedy run shares entries with `esi3d ask` and with runs of one sample;
 * - nothing secret is stored: the API key is not part of the request description.
 */
import { mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { homedir } from "node:os";
import { dirname, isAbsolute, join } from "node:path";
import type Database from "better-sqlite3";
import type { ChatImage, ChatRequest, ChatUsage } from "./types.js";
import { canonicalJson, sha256Hex } from "../../core/hash.js";

/** Bump when the key recipe or the stored fields change; old entries then simply stop matching. */
const CACHE_SCHEMA_VERSION = 1;
/** How long a writer waits for another process's lock before failing (ms); ours. */
const SQLITE_BUSY_TIMEOUT_MS = 5_000;

/**
 * The response cache every command shares unless told otherwise (`--cache PATH`, `--no-cache`): one file per
 * user, so a second run, or `esi3d ask`, replays what any earlier one paid for. Under $XDG_CACHE_HOME (the XDG
 * Base Directory spec: a relative value is ignored) or ~/.cache.
 */
export function defaultCachePath(env: Readonly<Record<string, string | undefined>> = process.env): string {
  const xdg = env.XDG_CACHE_HOME;
  return join(xdg && isAbsolute(xdg) ? xdg : join(homedir(), ".cache"), "esi3d", "llm-cache.sqlite");
}

export interface CacheKeyInput {
  provider: string;
  model: string;
  /** the resolved endpoint, so that two servers serving the same model name never share entries */
  baseUrl: string;
  /** generation parameters, exactly as they affect the request (temperature, output limit, its parameter name) */
  params: Record<string, unknown>;
  system?: string;
  user: string;
  images?: readonly ChatImage[];
  /** the request's sample index (ChatRequest.sample); 0 and undefined key alike */
  sample?: number;
}

/** A request is cached when it is deterministic (temperature 0 or unset) or a numbered sample. */
export function isCacheable(req: Pick<ChatRequest, "temperature" | "sample">): boolean {
  return req.temperature === undefined || req.temperature === 0 || req.sample !== undefined;
}

export function cacheKey(input: CacheKeyInput): string {
  return sha256Hex(
    canonicalJson({
      v: CACHE_SCHEMA_VERSION,
      provider: input.provider,
      model: input.model,
      baseUrl: input.baseUrl.replace(/\/+$/, ""),
      params: input.params,
      system: input.system ?? null,
      user: input.user,
      images: (input.images ?? []).map((im) => ({ mimeType: im.mimeType, sha256: sha256Hex(im.data) })),
      // only above 0, so the keys of unnumbered requests (and of the entries stored before samples) stay as they were
      ...(input.sample ? { sample: input.sample } : {}),
    }),
  );
}

export interface CachedReply {
  text: string;
  model: string;
  usage?: ChatUsage;
  finishReason?: string;
}

export interface CacheEntryInfo {
  provider: string;
  model: string;
  baseUrl: string;
}

interface Row {
  text: string;
  reply_model: string;
  usage: string | null;
  finish_reason: string | null;
}

/**
 * better-sqlite3 (a native module, ~40 ms to load) loads when the first cache opens: commands that import this
 * module but call no model (`esi3d list`, `ask` over the symbolic reasoner, a run of symbolic arms) never load it.
 */
const requireOnOpen = createRequire(import.meta.url);

export class ResponseCache {
  readonly path: string;
  private readonly db: Database.Database;
  private readonly getStmt: Database.Statement<[string], Row>;
  private readonly putStmt: Database.Statement<unknown[]>;

  private constructor(path: string) {
    this.path = path;
    if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
    const BetterSqlite = requireOnOpen("better-sqlite3") as typeof Database;
    this.db = new BetterSqlite(path);
    this.db.pragma("journal_mode = WAL");
    this.db.pragma(`busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`);
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS responses (
        key TEXT PRIMARY KEY,
        schema_version INTEGER NOT NULL,
        provider TEXT NOT NULL,
        model TEXT NOT NULL,
        base_url TEXT NOT NULL,
        text TEXT NOT NULL,
        reply_model TEXT NOT NULL,
        usage TEXT,
        finish_reason TEXT,
        created_at TEXT NOT NULL
      )`);
    this.getStmt = this.db.prepare("SELECT text, reply_model, usage, finish_reason FROM responses WHERE key = ?");
    this.putStmt = this.db.prepare(
      `INSERT OR REPLACE INTO responses (key, schema_version, provider, model, base_url, text, reply_model, usage, finish_reason, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
  }

  /** Opens (creating folders and the file if needed) the cache at `path`; ":memory:" gives a private one. */
  static open(path: string): ResponseCache {
    return new ResponseCache(path);
  }

  get(key: string): CachedReply | undefined {
    const row = this.getStmt.get(key);
    if (!row) return undefined;
    const out: CachedReply = { text: row.text, model: row.reply_model };
    if (row.usage) out.usage = JSON.parse(row.usage) as ChatUsage;
    if (row.finish_reason) out.finishReason = row.finish_reason;
    return out;
  }

  /** Stores a reply; returns false (and stores nothing) for an empty or whitespace-only text. */
  put(key: string, info: CacheEntryInfo, reply: CachedReply): boolean {
    if (reply.text.trim() === "") return false;
    this.putStmt.run(
      key,
      CACHE_SCHEMA_VERSION,
      info.provider,
      info.model,
      info.baseUrl,
      reply.text,
      reply.model,
      reply.usage ? JSON.stringify(reply.usage) : null,
      reply.finishReason ?? null,
      new Date().toISOString(),
    );
    return true;
  }

  /** Number of stored replies. */
  size(): number {
    return (this.db.prepare("SELECT COUNT(*) AS n FROM responses").get() as { n: number }).n;
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}
