/**
 * docs/protocol.md is generated where it can be: its JSON Schemas, limits, layout and endpoint tables must
 * match the code (regenerate with `node dist/src/apps/service/protocolDoc.js`).
 */
import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { REPO_ROOT } from "../cli/helpers.js";
import { GENERATED, renderProtocolDoc } from "../../../../src/apps/service/protocolDoc.js";
import { ROUTE_LIST } from "../../../../src/apps/service/routes.js";
import { openApiDocument } from "../../../../src/apps/service/openapi.js";
import { ViewHeaderSchema } from "../../../../src/apps/service/schemas.js";
import { VIEW_CONTENT_TYPE, VIEW_MAGIC } from "../../../../src/apps/service/viewCodec.js";

const DOC = join(REPO_ROOT, "docs", "protocol.md");

describe("docs/protocol.md", () => {
  it("is up to date with the zod schemas, limits and routes (node dist/src/apps/service/protocolDoc.js regenerates it)", () => {
    const text = readFileSync(DOC, "utf8");
    expect(renderProtocolDoc(text)).toBe(text);
    for (const name of Object.keys(GENERATED)) expect(text).toContain(`<!-- generated:${name} -->`);
    expect(text).toContain(JSON.stringify(z.toJSONSchema(ViewHeaderSchema, { io: "input", unrepresentable: "any" }), null, 2));
    expect(text).toContain(VIEW_MAGIC);
    expect(text).toContain(VIEW_CONTENT_TYPE);
    for (const r of ROUTE_LIST) expect(text).toContain(`\`${r.url.replace(/:([A-Za-z_]+)/g, "{$1}")}\``);
  });

  it("the OpenAPI document covers every route, with bearer auth on all but /healthz", () => {
    const doc = openApiDocument(ROUTE_LIST) as { paths: Record<string, Record<string, { security?: unknown[] }>> };
    for (const r of ROUTE_LIST) {
      const op = doc.paths[r.url.replace(/:([A-Za-z_]+)/g, "{$1}")]?.[r.method.toLowerCase()];
      expect(op, `${r.method} ${r.url}`).toBeDefined();
      expect(op!.security === undefined, `${r.method} ${r.url}`).toBe(r.auth);
    }
  });
});
