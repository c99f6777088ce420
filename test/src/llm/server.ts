/**
 * A scriptable loopback HTTP server (node:http on 127.0.0.1, port 0) that stands in for an LLM provider.
 * Each incoming request is recorded and answered by the next scripted handler (the last one repeats).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  rawBody: string;
  body: unknown;
  at: number;
}

export type Handler = (req: RecordedRequest, res: ServerResponse) => void | Promise<void>;

export interface TestServer {
  url: string;
  requests: RecordedRequest[];
  /** most requests being handled at the same time */
  maxInFlight: number;
  script(...handlers: Handler[]): void;
  close(): Promise<void>;
}

export async function startServer(...initial: Handler[]): Promise<TestServer> {
  let handlers: Handler[] = initial;
  let i = 0;
  let inFlight = 0;
  const state = { maxInFlight: 0 };
  const requests: RecordedRequest[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const rawBody = Buffer.concat(chunks).toString("utf8");
      let body: unknown = undefined;
      try {
        body = rawBody ? JSON.parse(rawBody) : undefined;
      } catch {
        body = undefined;
      }
      const rec: RecordedRequest = { method: req.method ?? "", url: req.url ?? "", headers: req.headers, rawBody, body, at: Date.now() };
      requests.push(rec);
      const h = handlers[Math.min(i, handlers.length - 1)];
      i++;
      inFlight++;
      state.maxInFlight = Math.max(state.maxInFlight, inFlight);
      res.on("close", () => inFlight--);
      if (!h) {
        res.writeHead(500).end("no handler scripted");
        return;
      }
      void Promise.resolve(h(rec, res)).catch((e) => {
        if (!res.headersSent) res.writeHead(500).end(String(e));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    get maxInFlight() {
      return state.maxInFlight;
    },
    script(...hs: Handler[]) {
      handlers = hs;
      i = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function json(status: number, body: unknown, headers: Record<string, string> = {}): Handler {
  return (_req, res) => {
    res.writeHead(status, { "content-type": "application/json", ...headers });
    res.end(JSON.stringify(body));
  };
}

export function raw(status: number, body: string, headers: Record<string, string> = {}): Handler {
  return (_req, res) => {
    res.writeHead(status, headers);
    res.end(body);
  };
}

/** Never answers; the socket stays open until the client gives up or the server closes. */
export const hang: Handler = () => {};

export function delayed(ms: number, h: Handler): Handler {
  return (req, res) => new Promise<void>((resolve) => setTimeout(() => resolve(h(req, res) as void), ms));
}

/** A Chat Completions reply. */
export function openaiReply(text: string | null, extra: Record<string, unknown> = {}): Handler {
  return json(200, {
    id: "chatcmpl-test",
    object: "chat.completion",
    created: 1,
    model: "test-model-0001",
    choices: [{ index: 0, message: { role: "assistant", content: text }, finish_reason: "stop" }],
    usage: { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 },
    ...extra,
  });
}

/** A generateContent reply. */
export function geminiReply(text: string): Handler {
  return json(200, {
    candidates: [{ content: { role: "model", parts: [{ text }] }, finishReason: "STOP", index: 0 }],
    usageMetadata: { promptTokenCount: 13, candidatesTokenCount: 5, totalTokenCount: 18 },
    modelVersion: "gemini-test-001",
  });
}
