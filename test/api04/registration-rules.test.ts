/**
 * Local refusals of what octet 0.8.x's host would reject at initialize
 * (docs/api-0.4.md): operation descriptors checked against the schemas,
 * nominal operation ids, prompt metadata controls, the BlobRef schema, and a
 * declared 0.4 hook whose feature the host did not offer.
 */
import { describe, expect, test } from "bun:test";
import { BLOB_SCHEMA, Extension } from "octet-extension";
import { checkOutputSchema } from "octet-extension/protocol";
import { TestHost } from "octet-extension/testing";

const ext04 = () => new Extension({ apiVersion: "0.4", logOutput: () => {} });

describe("API 0.4 registration rules", () => {
  test("a resource ref schema is typed; an operation's paths must hold exactly that schema, outputs need an outputSchema, ids are nominal", () => {
    const ext = ext04();
    const Db = ext.resourceType("db.conn");
    expect(Db.schema).toEqual({ type: "object", properties: { $resource: { type: "string", minLength: 1, maxLength: 128 }, type: { type: "string", enum: ["db.conn"] } }, required: ["$resource", "type"], additionalProperties: false });
    const params = { type: "object", properties: { db: Db.schema } };
    expect(() => ext.tool({ name: "ok", description: "d", parameters: params, operation: { id: "db.use", resourceInputs: [{ path: "/db", type: Db }] } }, () => "x")).not.toThrow();
    expect(() => ext.tool({ name: "spaced", description: "d", parameters: params, operation: { id: "db use", resourceInputs: [{ path: "/db", type: Db }] } }, () => "x")).toThrow("operation.id must be 1-128 ASCII characters");
    expect(() => ext.tool({ name: "nopath", description: "d", parameters: { type: "object" }, operation: { id: "db.use", resourceInputs: [{ path: "/db", type: Db }] } }, () => "x")).toThrow("parameters at /db must be exactly the ref schema of db.conn");
    expect(() => ext.tool({ name: "undeclared", description: "d", parameters: params, operation: { id: "db.use" } }, () => "x")).toThrow('parameters holds resource refs at ["/db"], the operation declares []');
    expect(() => ext.tool({ name: "noout", description: "d", operation: { id: "db.open", resourceOutputs: [{ path: "/db", type: Db }] } }, () => "x")).toThrow("resource outputs need an outputSchema");
    expect(() => ext.tool({ name: "array", description: "d", parameters: params, operation: { id: "db.use", resourceInputs: [{ path: "/db/0", type: Db }] } }, () => "x")).toThrow("JSON Pointers through object properties");
  });

  test("prompt metadata refuses C1 controls and lone surrogates like C0 ones; tab and newline pass", () => {
    const ext = ext04();
    expect(() => ext.tool({ name: "a", description: "d", promptSnippet: "line\tone\nline two" }, () => "x")).not.toThrow();
    expect(() => ext.tool({ name: "b", description: "d", promptSnippet: "next\u0085line" }, () => "x")).toThrow("no control characters but tab and newline");
    expect(() => ext.tool({ name: "c", description: "d", promptGuidelines: ["lone \ud800"] }, () => "x")).toThrow("lone surrogate");
    expect(() => new Extension({ apiVersion: "0.2", logOutput: () => {} }).tool({ name: "d", description: "d", promptSnippet: "x" }, () => "x")).toThrow("prompt metadata (promptSnippet, promptGuidelines) needs API 0.4; this extension speaks API 0.2");
  });

  test("BLOB_SCHEMA stays inside the output-schema subset octet checks", () => {
    expect(() => checkOutputSchema(BLOB_SCHEMA)).not.toThrow();
    expect((BLOB_SCHEMA.properties as Record<string, any>).digest.properties.algorithm).toEqual({ type: "string", enum: ["sha256"] });
  });

  test("a declared 0.4 hook whose feature the host did not offer is refused -32000 at initialize, naming both", async () => {
    const host = await TestHost.start(new URL("../fixtures/values/values-v04", import.meta.url).pathname, { offer: { optional: ["request_progress", "compaction_strategy"] } });
    const reply = await host.request("initialize", host.initializeParams());
    expect(reply.error).toEqual({ code: -32000, message: "declared hook cache_warming_decision needs the cache_warming_decision feature, which was not negotiated", data: { hook: "cache_warming_decision", feature: "cache_warming_decision" } });
    host.kill();
  });
});
