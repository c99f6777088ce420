/**
 * The inspection page as one self-contained HTML file: the browser bundle (three.js included) inline, the
 * page head as JSON, and each variant as its own JSON block that the page parses only when shown. No
 * network access: it opens from file://.
 *
 * The browser bundle is built by scripts/postbuild.mjs (npm run build) into dist/inspect-client/client.js.
 * In a checkout where that file is missing or older than the client sources (e.g. after a bare
 * `tsc`), it is bundled at run time with esbuild (a devDependency, present wherever the sources are).
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { PageMeta, Variant } from "./types.js";

/** dist/src/apps/viewer/page.js or src/apps/viewer/page.ts -> the repository (or package) root. */
function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    if (existsSync(join(dir, "package.json"))) return dir;
    dir = dirname(dir);
  }
  throw new Error("inspect: cannot find the esi3d package root");
}

const ROOT = packageRoot();
const CLIENT_BUNDLE = join(ROOT, "dist", "inspect-client", "client.js");
/** What the browser bundle is built from (client/ and the plain modules it imports). */
const CLIENT_SOURCES = [
  join(ROOT, "src", "apps", "viewer", "client"),
  ...["types.ts", "palette.ts", "geometry.ts"].map((f) => join(ROOT, "src", "apps", "viewer", f)),
];

function newestSource(): number {
  let t = 0;
  for (const p of CLIENT_SOURCES) {
    if (!existsSync(p)) continue;
    const st = statSync(p);
    if (st.isDirectory()) for (const f of readdirSync(p)) t = Math.max(t, statSync(join(p, f)).mtimeMs);
    else t = Math.max(t, st.mtimeMs);
  }
  return t;
}

let cached: string | null = null;

/** The page's script: the prebuilt bundle when it is current, else bundled now. */
async function clientScript(): Promise<string> {
  if (cached) return cached;
  const built = existsSync(CLIENT_BUNDLE) ? statSync(CLIENT_BUNDLE).mtimeMs : -1;
  const sources = newestSource();
  if (built >= 0 && built >= sources) cached = readFileSync(CLIENT_BUNDLE, "utf8");
  else {
    const script = join(ROOT, "scripts", "inspect-client.mjs");
    if (!existsSync(script)) {
      if (built >= 0) cached = readFileSync(CLIENT_BUNDLE, "utf8");
      else throw new Error(`inspect: the page's script is not built (${CLIENT_BUNDLE} is missing); run npm run build`);
    } else {
      try {
        const mod = (await import(new URL(`file://${script}`).href)) as { buildInspectClient(o: { write: boolean }): Promise<string> };
        cached = await mod.buildInspectClient({ write: false });
      } catch (e) {
        if (built >= 0) cached = readFileSync(CLIENT_BUNDLE, "utf8");
        else throw new Error(`inspect: the page's script is not built and esbuild could not bundle it (${(e as Error).message}); run npm run build`);
      }
    }
  }
  return cached!;
}

/** JSON safe inside <script>: "<" escaped so no "</script>" or "<!--" can end the block. */
function scriptJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, "\\u003c")
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");
}

export const escapeHtml = (s: string): string => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

/** The page: head JSON, embedded variants (file mode), and the script. */
export async function pageHtml(meta: PageMeta, variants: Variant[]): Promise<string> {
  const js = (await clientScript()).replace(/<\/script/gi, "<\\/script");
  const blocks = variants.map((v) => `<script type="application/json" id="esi3d-variant-${escapeHtml(v.key)}">${scriptJson(v)}</script>`);
  return [
    "<!doctype html>",
    '<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(meta.title)}</title>`,
    '<link rel="icon" href="data:,">', // no favicon request
    // the page loads nothing: everything is inline (data: images only)
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data: blob:; connect-src 'self'">`,
    // data blocks in the head: the script replaces the body's contents
    `<script type="application/json" id="esi3d-meta">${scriptJson(meta)}</script>`,
    ...blocks,
    "</head><body>",
    "<noscript>This page needs JavaScript and WebGL.</noscript>",
    `<script>${js}</script>`,
    "</body></html>",
    "",
  ].join("\n");
}
