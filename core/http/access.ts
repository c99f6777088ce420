/**
 * Who may talk to a server of ours (`esi3d serve`, `esi3d inspect --serve`): one rule for both. A server
 * only this machine can reach may run without a token; any other address needs a bearer token of at least
 * MIN_TOKEN_LENGTH characters, or the server refuses to start. Tokens are compared as sha256 digests with
 * timingSafeEqual, so the comparison takes the same time however much of a guess is right.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { isIP } from "node:net";
import { InputError } from "../errors.js";

/**
 * Shortest bearer token accepted when a server is reachable off loopback: 16 characters of a random token
 * (e.g. `openssl rand -hex 16` gives 32) are far beyond online guessing.
 */
export const MIN_TOKEN_LENGTH = 16;
/** The environment variable a token may come from instead of --token (kept out of `ps` output). */
const TOKEN_ENV = "ESI3D_TOKEN";

/** True for addresses only this machine can reach: 127.0.0.0/8, ::1, localhost. */
function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, "").toLowerCase();
  if (h === "localhost" || h === "::1" || h === "0:0:0:0:0:0:0:1") return true;
  if (isIP(h) === 4) return h.startsWith("127.");
  if (h.startsWith("::ffff:")) return h.slice(7).startsWith("127.");
  return false;
}

/**
 * The token a server runs with: `--token`, else $ESI3D_TOKEN, else none. Throws an input error naming the
 * flag when the token is too short, or when `host` is reachable from other machines and there is no token.
 */
export function serverToken(host: string, flagValue: string | undefined, env: NodeJS.ProcessEnv = process.env): string | null {
  const token = flagValue ?? (env[TOKEN_ENV] || null);
  if (token !== null && token.length < MIN_TOKEN_LENGTH)
    throw new InputError(`--token: at least ${MIN_TOKEN_LENGTH} characters (e.g. \`openssl rand -hex 16\`), got ${token.length}`, { field: "--token" });
  if (!isLoopback(host) && token === null)
    throw new InputError(
      `--host ${host}: binding to an address other machines can reach requires --token (or $${TOKEN_ENV}); without a token, use --host 127.0.0.1`,
      { field: "--host" },
    );
  return token;
}

const digest = (s: string) => createHash("sha256").update(s).digest();

/** A constant-time check of presented tokens against `token`; with no token, everything passes. */
export function tokenChecker(token: string | null): (presented: string | undefined) => boolean {
  if (token === null) return () => true;
  const want = digest(token);
  return (presented) => presented !== undefined && timingSafeEqual(digest(presented), want);
}

/** The token of an `Authorization: Bearer <token>` header (scheme case-insensitive), or undefined. */
export function bearerToken(header: string | undefined): string | undefined {
  return /^Bearer\s+(\S+)\s*$/i.exec(header ?? "")?.[1];
}

/** A value standing for the token in a cookie: its sha256, so the cookie never holds the token itself. */
export function tokenCookieValue(token: string): string {
  return digest(`esi3d-cookie:${token}`).toString("hex");
}
