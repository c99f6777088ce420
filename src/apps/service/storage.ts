/**
 * What the service answers when its disk fails it: a full disk or quota is 507
 * insufficient_storage, a read-only one 503; the client learns what happened, not a bare 500, and the message
 * names no server path. The writes themselves leave nothing half-written (core/fs.ts removes its
 * temporary file; bundles are written in a temporary directory that is removed on failure).
 */

/** errno codes of a disk that is full (ENOSPC) or over quota (EDQUOT). */
const FULL_CODES = new Set(["ENOSPC", "EDQUOT"]);
/** errno code of a read-only file system. */
const READ_ONLY_CODE = "EROFS";

export interface StorageFailure {
  status: number;
  code: string;
  message: string;
}

/** The answer for a storage failure `e` (a raw errno error or a FileSystemError), or null for anything else. */
export function storageFailure(e: unknown): StorageFailure | null {
  const code = (e as { code?: unknown })?.code;
  if (typeof code !== "string") return null;
  if (FULL_CODES.has(code))
    return {
      status: 507,
      code: "insufficient_storage",
      message: "the server's disk is full: nothing was stored; retry later (the server's operator must free space)",
    };
  if (code === READ_ONLY_CODE) return { status: 503, code: "storage_read_only", message: "the server's data directory is read-only: nothing was stored" };
  return null;
}
