/**
 * `esi3d run --queue URL --store http://HOST:PORT`: the producer serves its run directory to workers that
 * share no disk with it. The server listens on HOST:PORT and answers only below a random token it puts in
 * the store URL the jobs carry (so it is as private as the queue's Redis), and only these files:
 *   GET config.json, GET tasks/<task>.json          what the units need
 *   GET, PUT graphs/<task>/<paradigm>__<source>.json  the units' graphs, read back by the answer jobs
 *   PUT prompts/<hash>.json, prompts/images/<sha256>.<ext>  the answers' prompt files (src/eval/promptFiles.ts)
 * Every name is a safe path segment (core/paths.ts); a PUT is written atomically and bounded in size.
 */
import { randomBytes, timingSafeEqual } from "node:crypto";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { join } from "node:path";
import { InputError } from "../../../core/errors.js";
import { writeFileAtomic } from "../../../core/fs.js";
import { isSafeSegment } from "../../../core/paths.js";
import { STORE_URL_PATTERN } from "./options.js";

/** The largest graph a worker may upload (bytes): a stored graph with its diagnosis is at most a few MB. */
const MAX_UPLOAD_BYTES = 64 * 1024 * 1024;

/** The file in the run directory that keeps the store's token (not a store file: never served). */
const TOKEN_FILE = ".store-token";

export interface StoreServer {
  /** the store URL the jobs carry: http://HOST:PORT/TOKEN */
  url: string;
  close(): Promise<void>;
}

/** Which store file a request names, or null: config.json, tasks/X.json, graphs/X/Y.json, prompts/X.json or prompts/images/X. */
function storeFile(segments: string[], method: string): string[] | null {
  if (!segments.every(isSafeSegment)) return null;
  if (method === "GET" && segments.length === 1 && segments[0] === "config.json") return segments;
  if (method === "GET" && segments.length === 2 && segments[0] === "tasks" && segments[1]!.endsWith(".json")) return segments;
  if ((method === "GET" || method === "PUT") && segments.length === 3 && segments[0] === "graphs" && segments[2]!.endsWith(".json")) return segments;
  if (
    method === "PUT" &&
    segments[0] === "prompts" &&
    (segments.length === 2 ? segments[1]!.endsWith(".json") : segments.length === 3 && segments[1] === "images")
  )
    return segments;
  return null;
}

function readBody(req: IncomingMessage): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (c: Buffer) => {
      size += c.length;
      if (size > MAX_UPLOAD_BYTES) {
        resolve(null);
        req.destroy();
      } else chunks.push(c);
    });
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

/**
 * The run's store token, made once and kept in the run directory: a resumed run serves at the same URL, so
 * the jobs a killed collector left on the queue still reach their store.
 */
function storeToken(dir: string): string {
  const file = join(dir, TOKEN_FILE);
  if (existsSync(file)) {
    const t = readFileSync(file, "utf8").trim();
    if (/^[0-9a-f]{32}$/.test(t)) return t;
  }
  const t = randomBytes(16).toString("hex");
  writeFileAtomic(file, t + "\n");
  return t;
}

/** Serves `dir` at `address` (http://HOST:PORT); resolves once it listens. */
export async function serveStore(dir: string, address: string): Promise<StoreServer> {
  const m = STORE_URL_PATTERN.exec(address);
  if (!m)
    throw new InputError(`--store ${address}: expected a directory or http://HOST:PORT (the address this machine listens on for the workers)`, {
      field: "store",
    });
  const host = m[1]!.replace(/^\[|\]$/g, "");
  const port = Number(m[2]);
  const token = storeToken(dir);
  const tokenBytes = Buffer.from(token);
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const send = (status: number, body: string) => res.writeHead(status, { "content-type": "text/plain" }).end(body);
    const [first, ...segments] = decodeURIComponent(new URL(req.url ?? "/", "http://store").pathname)
      .split("/")
      .filter(Boolean);
    const given = Buffer.from(first ?? "");
    if (given.length !== tokenBytes.length || !timingSafeEqual(given, tokenBytes)) return send(404, "not found");
    const file = storeFile(segments, req.method ?? "");
    if (!file) return send(404, "not a store file");
    const path = join(dir, ...file);
    if (req.method === "GET") {
      if (!existsSync(path)) return send(404, `${file.join("/")}: not in the store`);
      const body = readFileSync(path);
      return res.writeHead(200, { "content-type": "application/json", "content-length": body.length }).end(body);
    }
    const body = await readBody(req);
    if (body === null) return send(413, `larger than ${MAX_UPLOAD_BYTES} bytes`);
    mkdirSync(join(dir, ...file.slice(0, -1)), { recursive: true });
    writeFileAtomic(path, body);
    return send(204, "");
  };
  const server = createServer((req, res) => {
    handle(req, res).catch((e: Error) => {
      if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" }).end(e.message);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", (e: NodeJS.ErrnoException) => {
      if (e.code === "EADDRINUSE") reject(new InputError(`--store ${address}: the address is already in use`, { field: "store" }));
      else if (e.code === "EADDRNOTAVAIL" || e.code === "ENOTFOUND")
        reject(
          new InputError(`--store ${address}: ${host} is not an address of this machine (workers fetch from it, so it must be one they reach)`, {
            field: "store",
          }),
        );
      else reject(e);
    });
    server.listen(port, host, () => resolve());
  });
  const bound = (server.address() as { port: number }).port;
  return {
    url: `http://${m[1]}:${bound}/${token}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
