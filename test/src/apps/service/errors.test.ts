/**
 * The service's error mapping, in process (runs everywhere; disk-full.test.ts shows the same on a real full
 * disk where a tmpfs can be mounted): storage failures, bundle errors without their file, clipped messages.
 */
import { describe, expect, it } from "vitest";
import { pathError } from "../../../../core/fs.js";
import { BundleError } from "../../../../core/bundle/errors.js";
import { toHttpError } from "../../../../src/apps/service/errors.js";

const errno = (code: string) => Object.assign(new Error(`${code}: something, write '/srv/data/x'`), { code });

describe("toHttpError", () => {
  it("answers a full disk with 507 and a read-only one with 503, naming no path", () => {
    for (const e of [errno("ENOSPC"), errno("EDQUOT"), pathError(errno("ENOSPC"), "/srv/data/sessions/s-1/views/000.view")]) {
      const h = toHttpError(e, "r1");
      expect(h.status).toBe(507);
      expect(h.code).toBe("insufficient_storage");
      expect(h.message).not.toContain("/srv");
    }
    expect(pathError(errno("ENOSPC"), "/x")).toMatchObject({
      name: "FileSystemError",
      code: "ENOSPC",
      path: "/x",
      message: "/x: cannot write: no space left on the device (ENOSPC)",
    });
    const ro = toHttpError(errno("EROFS"), "r2");
    expect([ro.status, ro.code]).toEqual([503, "storage_read_only"]);
    const other = toHttpError(errno("EIO"), "r3");
    expect([other.status, other.code]).toEqual([500, "internal"]);
    expect(other.message).not.toContain("/srv");
  });

  it("answers a bundle error with its field and detail, not its file", () => {
    const h = toHttpError(new BundleError("/srv/data/bundles/b-1/bundle.json", "views.0.extrinsic", "rotation is not orthonormal"), "r4");
    expect(h.status).toBe(400);
    expect(h.message).toBe("views.0.extrinsic: rotation is not orthonormal");
    expect(h.field).toBe("views.0.extrinsic");
  });

  it("clips a message to 600 characters and redacts it", () => {
    const h = toHttpError(new BundleError("f", "views.0.rgb", `at /srv/data: ${"x".repeat(10_000)}`), "r5");
    const body = h.body((t) => t.split("/srv/data").join("<data>"));
    expect(body.error.message.length).toBeLessThanOrEqual(600);
    expect(body.error.message).toContain("<data>");
  });
});
