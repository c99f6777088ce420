/**
 * A bound on the size of a model's reply, counted on the wire (the HTTP body as it arrives, decompressed).
 * Without one, a server that answered with 50 MB had every reply stored whole: items.jsonl 786 MB and the cache
 * 577 MB for 12 items, 1.87 GB of memory, exit 0. A reply over the bound is cut off as it arrives
 * (nothing beyond the bound is held) and its call fails with the error kind `reply_too_large`, which the item
 * records as its error class; nothing of it is cached.
 */

/**
 * Default bound (bytes): 8 MiB. The largest output windows of current models (Gemini 2.5: 65,536 tokens, about
 * 4 bytes a token) make replies of about 256 KiB of text; 8 MiB is 32 times that, with the JSON around it.
 */
export const DEFAULT_MAX_REPLY_BYTES = 8 * 1024 * 1024;

/** A reply body beyond the bound; thrown inside the response body, so it surfaces from the SDK's read. */
export class ReplyTooLargeError extends Error {
  constructor(
    readonly limitBytes: number,
    readonly declaredBytes?: number,
  ) {
    super(
      `the reply is larger than the ${limitBytes}-byte limit${declaredBytes !== undefined ? ` (Content-Length ${declaredBytes})` : ""}; it was not read or stored`,
    );
    this.name = "ReplyTooLargeError";
  }
}

/** The ReplyTooLargeError behind `e` (itself or a cause a few levels down), if any. */
export function replyTooLarge(e: unknown): ReplyTooLargeError | undefined {
  for (let x: unknown = e, depth = 0; x && depth < 5; x = (x as { cause?: unknown }).cause, depth++) if (x instanceof ReplyTooLargeError) return x;
  return undefined;
}

/**
 * `fetch` whose responses' bodies fail with ReplyTooLargeError once more than `limitBytes` arrive (or at once,
 * when Content-Length declares more).
 */
export function boundedFetch(limitBytes: number, base: typeof fetch = fetch): typeof fetch {
  return async (input, init) => {
    const res = await base(input, init);
    const declared = Number(res.headers.get("content-length") ?? NaN);
    if (declared > limitBytes) {
      await res.body?.cancel().catch(() => undefined);
      throw new ReplyTooLargeError(limitBytes, declared);
    }
    if (!res.body) return res;
    let seen = 0;
    const counted = res.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, ctl) {
          seen += chunk.byteLength;
          if (seen > limitBytes) ctl.error(new ReplyTooLargeError(limitBytes));
          else ctl.enqueue(chunk);
        },
      }),
    );
    return new Response(counted, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
}
