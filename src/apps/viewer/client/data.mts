/** Getting variants (embedded in the page, or from the local server) and decoding their arrays. */
import type { PageMeta, Variant, ViewPayload } from "../types.js";

export interface DecodedCloud {
  count: number;
  /** float32 x, y, z (world, Z up, m) */
  position: Float32Array;
  rgb: Uint8Array;
  /** 0..255, linear in confidence between conf_min and conf_max */
  confidence: Uint8Array;
  view: Uint16Array;
  /** 1 + node index, 0 = none */
  node: Uint16Array;
}

function bytes(b64: string): Uint8Array {
  const s = atob(b64);
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out;
}

function inflate(b64: string): Promise<Uint8Array> {
  return new Response(new Blob([bytes(b64) as BlobPart]).stream().pipeThrough(new DecompressionStream("deflate"))).arrayBuffer().then((b) => new Uint8Array(b));
}

const asU16 = (b: Uint8Array) => new Uint16Array(b.buffer, b.byteOffset, b.byteLength / 2);

/** Unpacks a variant's cloud (src/apps/viewer/types.ts CloudPayload: deflated arrays, delta-coded positions). */
export async function decodeCloud(v: Variant): Promise<DecodedCloud> {
  const c = v.cloud;
  const n = c.count;
  const [planes, rgb, confidence, view, node] = await Promise.all([inflate(c.xyz), inflate(c.rgb), inflate(c.confidence), inflate(c.view), inflate(c.node)]);
  const position = new Float32Array(3 * n);
  const lo = c.bounds.min,
    hi = c.bounds.max;
  for (let a = 0; a < 3; a++) {
    const step = (hi[a]! - lo[a]!) / 65535;
    let q = 0;
    for (let k = 0; k < n; k++) {
      q = (q + (planes[a * n + k]! | (planes[(3 + a) * n + k]! << 8))) & 0xffff;
      position[3 * k + a] = lo[a]! + q * step;
    }
  }
  return { count: n, position, rgb, confidence, view: asU16(view), node: asU16(node) };
}

const labelCache = new WeakMap<ViewPayload, Promise<Uint16Array>>();

/** The view's node-label thumbnail (1 + node index per thumbnail pixel), inflated once. */
export function viewLabels(view: ViewPayload): Promise<Uint16Array> {
  let p = labelCache.get(view);
  if (!p) {
    p = inflate(view.labels).then(asU16);
    labelCache.set(view, p);
  }
  return p;
}

export function readMeta(): PageMeta {
  const el = document.getElementById("esi3d-meta");
  if (!el?.textContent) throw new Error("this page has no esi3d-meta block");
  return JSON.parse(el.textContent) as PageMeta;
}

const variantCache = new Map<string, Promise<Variant>>();

/** A variant by key: from its embedded block (file mode) or the server (serve mode), once. */
export function loadVariant(meta: PageMeta, key: string): Promise<Variant> {
  let p = variantCache.get(key);
  if (!p) {
    if (meta.mode === "file") {
      const el = document.getElementById(`esi3d-variant-${key}`);
      p = el?.textContent
        ? Promise.resolve(JSON.parse(el.textContent) as Variant)
        : Promise.reject(
            new Error(
              `this page does not embed ${key}; write it with esi3d inspect RUN --task ${meta.task.task_id} (all variants) or open the run with --serve`,
            ),
          );
    } else {
      p = fetch(`${meta.api}variant/${encodeURIComponent(key)}`).then(async (r) => {
        if (!r.ok) throw new Error((await r.text()) || `HTTP ${r.status}`);
        return (await r.json()) as Variant;
      });
    }
    p.catch(() => variantCache.delete(key));
    variantCache.set(key, p);
  }
  return p;
}
