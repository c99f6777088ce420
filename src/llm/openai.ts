/**
 * `openai:<model>`: the official openai SDK 6.x (7.x needs Node 22), Chat Completions only, because it is the
 * common subset that OpenAI and OpenAI-compatible servers (vLLM, Ollama, llama.cpp's llama-server) all speak
 * (their documented Chat Completions endpoints). Images go as `image_url` parts with base64 data URLs.
 * The SDK's own retries are off (`maxRetries: 0`); client.ts retries.
 */
import type OpenAI from "openai";
import { parseRetryAfterMs } from "./retry.js";
import { TransportError, base64, malformedBody, isConnectionFailure, serverMessage, type Transport, type TransportReply } from "./transport.js";
import type { ChatRequest } from "./types.js";
import { boundedFetch, replyTooLarge } from "./replyLimit.js";

/** The public endpoint, used when no base URL is given (and the SDK's own default). */
export const OPENAI_DEFAULT_BASE_URL = "https://api.openai.com/v1";
/**
 * Sent as the key to an explicitly chosen server when OPENAI_API_KEY is unset: the SDK insists on some key, and
 * local servers (Ollama, llama.cpp, vLLM without --api-key) ignore it.
 */
export const OPENAI_PLACEHOLDER_KEY = "sk-no-key-required";

/**
 * Which body field carries the output limit. OpenAI's reasoning models accept only `max_completion_tokens`;
 * older OpenAI-compatible servers know only `max_tokens`. Default: the former for api.openai.com, the latter for
 * any other base URL.
 */
/** The SDK's timer fires only if ours (client.ts, which classifies it as `timeout`) somehow did not: ours. */
const SDK_TIMEOUT_BACKSTOP_FACTOR = 2;
const SDK_TIMEOUT_BACKSTOP_SLACK_MS = 1_000;

export type MaxTokensParam = "max_tokens" | "max_completion_tokens";

export interface OpenAiTransportOptions {
  model: string;
  apiKey: string;
  baseUrl: string;
  maxTokensParam: MaxTokensParam;
  /** the per-attempt timeout of client.ts; the SDK's own timer is set later than this, as a backstop only */
  timeoutMs: number;
  /** the most bytes a reply's body may have (src/llm/replyLimit.ts) */
  maxReplyBytes: number;
}

type ContentPart = OpenAI.Chat.Completions.ChatCompletionContentPart;
type Message = OpenAI.Chat.Completions.ChatCompletionMessageParam;

type OpenAiSdk = typeof OpenAI;
let sdkModule: Promise<OpenAiSdk> | null = null;
/** The SDK, loaded before the first request (ready): ~0.1 s of CPU that a run without an openai model should not pay. */
const loadSdk = (): Promise<OpenAiSdk> => (sdkModule ??= import("openai").then((m) => m.default));

export function createOpenAiTransport(o: OpenAiTransportOptions): Transport {
  let sdk: OpenAI | null = null;
  const client = (Sdk: OpenAiSdk): OpenAI =>
    (sdk ??= new Sdk({
      apiKey: o.apiKey,
      baseURL: o.baseUrl,
      maxRetries: 0,
      timeout: Math.ceil(o.timeoutMs * SDK_TIMEOUT_BACKSTOP_FACTOR) + SDK_TIMEOUT_BACKSTOP_SLACK_MS,
      logLevel: "off",
      fetch: boundedFetch(o.maxReplyBytes),
    }));

  const params = (req: ChatRequest): Record<string, unknown> => ({
    temperature: req.temperature ?? null,
    maxOutputTokens: req.maxOutputTokens ?? null,
    maxTokensParam: req.maxOutputTokens === undefined ? null : o.maxTokensParam,
  });

  async function send(req: ChatRequest, signal: AbortSignal): Promise<TransportReply> {
    const messages: Message[] = [];
    if (req.system !== undefined && req.system !== "") messages.push({ role: "system", content: req.system });
    if (req.images && req.images.length > 0) {
      const parts: ContentPart[] = [{ type: "text", text: req.user }];
      for (const im of req.images) {
        parts.push({ type: "image_url", image_url: { url: `data:${im.mimeType};base64,${base64(im.data)}` } });
      }
      messages.push({ role: "user", content: parts });
    } else {
      messages.push({ role: "user", content: req.user });
    }
    const body: OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming = { model: o.model, messages };
    if (req.temperature !== undefined) body.temperature = req.temperature;
    if (req.maxOutputTokens !== undefined) body[o.maxTokensParam] = req.maxOutputTokens;

    const Sdk = await loadSdk();
    let completion: unknown;
    try {
      completion = await client(Sdk).chat.completions.create(body, { signal, maxRetries: 0 });
    } catch (e) {
      throw toTransportError(e, Sdk);
    }
    return readCompletion(completion, o.model);
  }

  const ready = async (): Promise<void> => void client(await loadSdk());
  return { provider: "openai", model: o.model, baseUrl: o.baseUrl, secrets: [o.apiKey], params, send, ready };
}

function toTransportError(e: unknown, OpenAI: OpenAiSdk): unknown {
  const big = replyTooLarge(e);
  if (big) return new TransportError("reply_too_large", big.message);
  if (e instanceof OpenAI.APIUserAbortError) return e; // client.ts knows whether it was the timeout or the caller
  if (e instanceof OpenAI.APIConnectionTimeoutError) return new TransportError("connection", "request timed out (SDK timer)");
  if (e instanceof OpenAI.APIConnectionError) {
    const cause = (e as { cause?: unknown }).cause;
    const detail = cause instanceof Error ? `${cause.message}${causeCode(cause)}` : e.message;
    return new TransportError("connection", detail);
  }
  if (e instanceof OpenAI.APIError && typeof e.status === "number") {
    return new TransportError("http", serverMessage(e.error, e.message), {
      status: e.status,
      retryAfterMs: parseRetryAfterMs(e.headers),
    });
  }
  if (e instanceof SyntaxError) return malformedBody(e);
  if (isConnectionFailure(e)) return new TransportError("connection", (e as Error).message);
  return e;
}

/** What undici says under "fetch failed": the socket's error code (ECONNREFUSED, ...), or its message when it has none ("bad port"). */
function causeCode(e: Error): string {
  const inner = (e as { cause?: { code?: unknown; message?: unknown } }).cause;
  const c = inner?.code ?? (e as { code?: unknown }).code;
  if (typeof c === "string") return ` (${c})`;
  return typeof inner?.message === "string" && inner.message ? ` (${inner.message})` : "";
}

function readCompletion(c: unknown, requestedModel: string): TransportReply {
  if (!c || typeof c !== "object" || !Array.isArray((c as { choices?: unknown }).choices)) {
    throw new TransportError("bad_response", "the response is not a Chat Completions object (no `choices` array)");
  }
  const cc = c as OpenAI.Chat.Completions.ChatCompletion;
  const choice = cc.choices[0];
  if (!choice || !choice.message || typeof choice.message !== "object") {
    throw new TransportError("bad_response", "the response has no choices[0].message");
  }
  const content: unknown = choice.message.content;
  let text: string;
  if (typeof content === "string") text = content;
  else if (content == null) text = "";
  else if (Array.isArray(content)) {
    // a few compatible servers return content parts even for text replies
    text = content.map((p) => (p && typeof p === "object" && typeof (p as { text?: unknown }).text === "string" ? (p as { text: string }).text : "")).join("");
  } else throw new TransportError("bad_response", "choices[0].message.content is neither text nor null");
  const out: TransportReply = { text, model: typeof cc.model === "string" && cc.model ? cc.model : requestedModel };
  if (cc.usage) out.usage = { inputTokens: cc.usage.prompt_tokens, outputTokens: cc.usage.completion_tokens };
  if (choice.finish_reason) out.finishReason = choice.finish_reason;
  return out;
}
