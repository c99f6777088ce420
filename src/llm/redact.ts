/**
 * Keeps API keys out of every message, log line, record and cache entry this package writes. Keys are only
 * ever read from the environment (OPENAI_API_KEY, GEMINI_API_KEY) and handed to the SDK; anything that turns an
 * error into text goes through `redact` with the client's known secrets, plus generic patterns as a backstop
 * (an `Authorization: Bearer …` header or a `key=` query parameter echoed by a proxy).
 */

/** Secrets shorter than this are not scrubbed by value (too likely to collide with ordinary text). */
const MIN_SECRET_LENGTH = 6;
const REDACTED = "[redacted]";

export function redact(text: string, secrets: readonly (string | undefined)[] = []): string {
  let out = text;
  for (const s of secrets) {
    if (s && s.length >= MIN_SECRET_LENGTH) out = out.split(s).join(REDACTED);
  }
  return out
    .replace(/(bearer\s+)[A-Za-z0-9._~+/=-]{8,}/gi, `$1${REDACTED}`)
    .replace(/([?&](?:key|api_key|apikey)=)[^&\s"']+/gi, `$1${REDACTED}`)
    .replace(/(x-goog-api-key["']?\s*[:=]\s*["']?)[^\s"',}]+/gi, `$1${REDACTED}`);
}

/** A URL for messages: no user-info, no query string. */
export function displayUrl(url: string): string {
  try {
    const u = new URL(url);
    u.username = "";
    u.password = "";
    u.search = "";
    return u.toString().replace(/\/$/, "");
  } catch {
    return "(invalid URL)";
  }
}
