/**
 * The prompt file of an LLM answer: the first request as the model received it (system and user messages,
 * images by sha256), plus what determines the reply besides the messages (provider, model, endpoint,
 * generation parameters). A run stores it once as prompts/<prompt_hash>.json (src/eval/promptFiles.ts), so
 * the file is content-addressed: its name is the prompt hash of src/reason/llm.ts, and `promptFileHash`
 * recomputes that hash from the file's own fields, so a reader can check that the two agree.
 *
 * Images are referenced, not embedded: each image part names its sha256, MIME type and bundle view, and a run
 * keeps the bytes beside it as prompts/images/<sha256>.<ext>.
 */
import * as z from "zod";
import { canonicalJson, sha256Hex } from "../../core/hash.js";
import type { BuiltPrompt } from "../prompt/templates.js";

/** The file's own format (apart from PROMPT_VERSION, the version of the prompt texts it holds). */
export const PROMPT_FILE_FORMAT = "esi3d-prompt-file/1";

const TextPartSchema = z.object({ type: z.literal("text"), text: z.string() }).strict();
const ImagePartSchema = z
  .object({
    type: z.literal("image"),
    mime_type: z.string().min(1),
    sha256: z
      .string()
      .regex(/^[0-9a-f]{64}$/)
      .describe("sha256 of the encoded image bytes as sent (base64-decoded)"),
    view: z.number().int().min(0).nullable().describe("the bundle view the image shows"),
  })
  .strict();

const PromptMessageSchema = z
  .object({
    role: z.enum(["system", "user"]),
    content: z.array(z.discriminatedUnion("type", [TextPartSchema, ImagePartSchema])).describe("text first, then the images in the order sent"),
  })
  .strict();
type PromptMessage = z.infer<typeof PromptMessageSchema>;

export const PromptFileSchema = z
  .object({
    format: z.literal(PROMPT_FILE_FORMAT),
    prompt_hash: z
      .string()
      .regex(/^[0-9a-f]{64}$/)
      .describe(
        "the file's name: sha256 of the canonical JSON of prompt version, provider, model, endpoint, params, system, user and image hashes (src/reason/llm.ts promptHash)",
      ),
    prompt_version: z.string(),
    provider: z.string(),
    model: z.string().describe("the model asked for (the record's served_model is the one that answered)"),
    base_url: z.string().describe("the endpoint the request went to"),
    params: z.object({ temperature: z.number().nullable(), max_output_tokens: z.number().int().nullable() }).strict(),
    messages: z.array(PromptMessageSchema).describe("the first request; a re-prompt sends the same with the record's `reprompt` appended to the user text"),
  })
  .strict();
export type PromptFile = z.infer<typeof PromptFileSchema>;

/** The endpoint a prompt goes to: provider, model and resolved base URL (src/reason/llm.ts promptTarget). */
export type PromptTarget = Omit<PromptHashIdentity, "params">;

/** What determines a first reply, besides the prompt itself. */
export interface PromptHashIdentity {
  provider: string;
  model: string;
  baseUrl: string;
  params: { temperature: number | null; maxOutputTokens: number | null };
}

/** An image a prompt file references, with its bytes (kept beside the file by the run). */
interface PromptImage {
  sha256: string;
  mimeType: string;
  data: Uint8Array;
}

/** A prompt file and the images it references: what an LLM answer hands the run to store. */
export interface PromptLog {
  file: PromptFile;
  images: PromptImage[];
}

/** sha256 of everything that determines the first reply: the fields hashed are exactly the prompt file's. */
function hashOf(version: string, id: PromptHashIdentity, system: string, user: string, images: ReadonlyArray<{ mimeType: string; sha256: string }>): string {
  return sha256Hex(
    canonicalJson({
      version,
      provider: id.provider,
      model: id.model,
      baseUrl: id.baseUrl,
      params: id.params,
      system,
      user,
      images: images.map((im) => ({ mimeType: im.mimeType, sha256: im.sha256 })),
    }),
  );
}

/** What a prompt file is made of: a built prompt's version, texts and images (an active agent's step request too). */
export type PromptParts = Pick<BuiltPrompt, "version" | "system" | "user" | "images" | "views">;

/** The prompt hash of a built prompt, as records keep it. */
export function promptHash(id: PromptHashIdentity, p: PromptParts): string {
  return hashOf(
    p.version,
    id,
    p.system,
    p.user,
    (p.images ?? []).map((im) => ({ mimeType: im.mimeType, sha256: sha256Hex(im.data) })),
  );
}

/** The prompt file of a built prompt (the first request) and its images. */
export function promptLogOf(id: PromptHashIdentity, p: PromptParts): PromptLog {
  const images: PromptImage[] = (p.images ?? []).map((im) => ({ sha256: sha256Hex(im.data), mimeType: im.mimeType, data: im.data }));
  const user: PromptMessage["content"] = [
    { type: "text", text: p.user },
    ...images.map((im, k) => ({ type: "image" as const, mime_type: im.mimeType, sha256: im.sha256, view: p.views?.[k]?.view ?? null })),
  ];
  // the clients send no system message when the system text is empty (src/llm/openai.ts, gemini.ts)
  const messages: PromptMessage[] = [
    ...(p.system !== "" ? [{ role: "system" as const, content: [{ type: "text" as const, text: p.system }] }] : []),
    { role: "user", content: user },
  ];
  const file: PromptFile = {
    format: PROMPT_FILE_FORMAT,
    prompt_hash: promptHash(id, p),
    prompt_version: p.version,
    provider: id.provider,
    model: id.model,
    base_url: id.baseUrl,
    params: { temperature: id.params.temperature, max_output_tokens: id.params.maxOutputTokens },
    messages,
  };
  return { file, images };
}

/** The texts and image references of a prompt file's messages. */
export function promptTexts(f: PromptFile): { system: string; user: string; images: Array<{ mimeType: string; sha256: string; view: number | null }> } {
  const text = (role: string) =>
    f.messages
      .filter((m) => m.role === role)
      .flatMap((m) => m.content.flatMap((c) => (c.type === "text" ? [c.text] : [])))
      .join("\n");
  const images = f.messages.flatMap((m) => m.content.flatMap((c) => (c.type === "image" ? [{ mimeType: c.mime_type, sha256: c.sha256, view: c.view }] : [])));
  return { system: text("system"), user: text("user"), images };
}

/** The prompt hash recomputed from a prompt file's own fields: equal to its `prompt_hash` unless the file was altered. */
export function promptFileHash(f: PromptFile): string {
  const t = promptTexts(f);
  return hashOf(
    f.prompt_version,
    { provider: f.provider, model: f.model, baseUrl: f.base_url, params: { temperature: f.params.temperature, maxOutputTokens: f.params.max_output_tokens } },
    t.system,
    t.user,
    t.images,
  );
}
