/**
 * `gemini:<model>`: Google's current SDK, @google/genai 2.32 (3.1+ needs Node 22). Note: `@google/generative-ai`
 * is Google's deprecated legacy SDK (support ended 2025-08-31) and must not be used.
 *
 * The request goes to `${baseUrl}/${apiVersion}/models/<model>:generateContent` with the key in the
 * `x-goog-api-key` header; images are `inlineData` parts (base64). The SDK retries only when
 * `httpOptions.retryOptions` is set, and we never set it: client.ts retries. The SDK's ApiError carries no
 * headers, so each call passes its own `fetch` wrapper that keeps the headers of a failed response, which is how we
 * read Retry-After.
 */
import type { GenerateContentConfig, GenerateContentResponse, GoogleGenAI, Part } from "@google/genai";
import { parseRetryAfterMs } from "./retry.js";
import { TransportError, base64, isConnectionFailure, malformedBody, serverMessage, type Transport, type TransportReply } from "./transport.js";
import type { ChatRequest } from "./types.js";
import { boundedFetch, replyTooLarge } from "./replyLimit.js";

/** The Gemini API endpoint (the SDK's default for the non-Vertex backend). */
export const GEMINI_DEFAULT_BASE_URL = "https://generativelanguage.googleapis.com";
/** The API version the SDK uses by default for the Gemini API. */
export const GEMINI_DEFAULT_API_VERSION = "v1beta";

export interface GeminiTransportOptions {
  model: string;
  apiKey: string;
  baseUrl: string;
  apiVersion: string;
  /** the most bytes a reply's body may have (src/llm/replyLimit.ts) */
  maxReplyBytes: number;
}

type GenAiSdk = typeof import("@google/genai");
let sdkModule: Promise<GenAiSdk> | null = null;
/** The SDK, loaded before the first request (ready): ~0.1 s of CPU that a run without a gemini model should not pay. */
const loadSdk = (): Promise<GenAiSdk> => (sdkModule ??= import("@google/genai"));

export function createGeminiTransport(o: GeminiTransportOptions): Transport {
  let sdk: GoogleGenAI | null = null;
  const client = (m: GenAiSdk): GoogleGenAI =>
    (sdk ??= new m.GoogleGenAI({
      apiKey: o.apiKey,
      vertexai: false,
      httpOptions: { baseUrl: o.baseUrl, apiVersion: o.apiVersion },
    }));

  const params = (req: ChatRequest): Record<string, unknown> => ({
    apiVersion: o.apiVersion,
    temperature: req.temperature ?? null,
    maxOutputTokens: req.maxOutputTokens ?? null,
  });

  async function send(req: ChatRequest, signal: AbortSignal): Promise<TransportReply> {
    const parts: Part[] = [{ text: req.user }];
    for (const im of req.images ?? []) parts.push({ inlineData: { mimeType: im.mimeType, data: base64(im.data) } });
    let failedHeaders: Headers | undefined;
    const bounded = boundedFetch(o.maxReplyBytes);
    const config: GenerateContentConfig = {
      abortSignal: signal,
      httpOptions: {
        fetch: async (input, init) => {
          const res = await bounded(input, init);
          if (!res.ok) failedHeaders = res.headers;
          return res;
        },
      },
    };
    if (req.system !== undefined && req.system !== "") config.systemInstruction = { parts: [{ text: req.system }] };
    if (req.temperature !== undefined) config.temperature = req.temperature;
    if (req.maxOutputTokens !== undefined) config.maxOutputTokens = req.maxOutputTokens;

    const m = await loadSdk();
    let resp: GenerateContentResponse;
    try {
      resp = await client(m).models.generateContent({ model: o.model, contents: [{ role: "user", parts }], config });
    } catch (e) {
      throw toTransportError(e, failedHeaders, m.ApiError);
    }
    return readResponse(resp, o.model);
  }

  const ready = async (): Promise<void> => void client(await loadSdk());
  return { provider: "gemini", model: o.model, baseUrl: `${o.baseUrl.replace(/\/+$/, "")}/${o.apiVersion}`, secrets: [o.apiKey], params, send, ready };
}

function toTransportError(e: unknown, headers: Headers | undefined, ApiError: GenAiSdk["ApiError"]): unknown {
  const big = replyTooLarge(e);
  if (big) return new TransportError("reply_too_large", big.message);
  if (e instanceof ApiError) {
    return new TransportError("http", serverMessage(e.message, `HTTP ${e.status}`), {
      status: e.status,
      retryAfterMs: parseRetryAfterMs(headers) ?? retryInfoDelayMs(e.message),
    });
  }
  if (e instanceof Error && e.name === "AbortError") return e; // client.ts knows whether it was the timeout or the caller
  if (e instanceof SyntaxError) return malformedBody(e);
  if (isConnectionFailure(e)) {
    const cause = (e as { cause?: unknown }).cause;
    return new TransportError("connection", cause instanceof Error ? cause.message : (e as Error).message);
  }
  return e;
}

/**
 * Google APIs put the wait in the error body rather than a header: `error.details[]` holds a
 * `type.googleapis.com/google.rpc.RetryInfo` entry with `retryDelay` as a protobuf Duration string ("37s", "1.5s").
 */
function retryInfoDelayMs(errorBody: string): number | undefined {
  let b: unknown;
  try {
    b = JSON.parse(errorBody);
  } catch {
    return undefined;
  }
  const details = (b as { error?: { details?: unknown } } | null)?.error?.details;
  if (!Array.isArray(details)) return undefined;
  for (const d of details) {
    const delay = (d as { retryDelay?: unknown } | null)?.retryDelay;
    if (typeof delay === "string") {
      const m = /^(\d+(?:\.\d+)?)s$/.exec(delay.trim());
      if (m) return Number(m[1]) * 1000;
    }
  }
  return undefined;
}

function readResponse(resp: GenerateContentResponse, requestedModel: string): TransportReply {
  if (!resp || typeof resp !== "object") throw new TransportError("bad_response", "the response is not a generateContent object");
  const cand = resp.candidates?.[0];
  const out: TransportReply = { text: "", model: resp.modelVersion || requestedModel };
  if (!cand) {
    const block = resp.promptFeedback?.blockReason;
    if (!block) throw new TransportError("bad_response", "the response has no candidates and no promptFeedback");
    out.finishReason = `BLOCKED:${block}`;
  } else {
    // thought parts (thinking models) are not the answer
    out.text = (cand.content?.parts ?? [])
      .filter((p) => typeof p.text === "string" && !p.thought)
      .map((p) => p.text)
      .join("");
    if (cand.finishReason) out.finishReason = String(cand.finishReason);
  }
  const u = resp.usageMetadata;
  if (u) {
    // output = visible candidates + thinking tokens: both are generated (and billed) output
    const outTok =
      u.candidatesTokenCount === undefined && u.thoughtsTokenCount === undefined ? undefined : (u.candidatesTokenCount ?? 0) + (u.thoughtsTokenCount ?? 0);
    out.usage = { inputTokens: u.promptTokenCount, outputTokens: outTok };
  }
  return out;
}
