/**
 * API 0.4 resource refs (resource_refs_v1 + operation_descriptors_v1),
 * process level (docs/api-0.4.md "Resources"): operation descriptors,
 * export under a tool call, activation on success only, resolution,
 * release and disposal. Fixture: test/fixtures/resources/.
 */
import { describe, expect, test } from "bun:test";
import { TestHost } from "octet-extension/testing";
import { waitLog } from "../dispatch-fixture.ts";
import { expectCleanStreams } from "../helpers.ts";

type Obj = Record<string, unknown>;
const DIR = new URL("../fixtures/resources/resources-v04", import.meta.url).pathname;
const text = (result: unknown) => (result as { content: { text: string }[] }).content[0]!.text;

describe("API 0.4 resources", () => {
  test("negotiates both features, echoes the exact registry limits and sends the operation descriptors", async () => {
    const host = await TestHost.start(DIR);
    const result = await host.initialize();
    expect(result.protocol).toMatchObject({ limits: { resource_refs_v1: { max_records: 256, max_registrations_per_parent: 32 } } });
    expect((result.protocol as Obj).features).toEqual(expect.arrayContaining(["resource_refs_v1", "operation_descriptors_v1"]));
    const bump = (result.tools as Obj[]).find((t) => t.name === "bump")!;
    expect(bump.operation).toEqual({ id: "counter.bump", resource_inputs: [{ path: "/counter", type: "demo.counter", access: "exclusive" }], resource_outputs: [], receiver: "/counter" });
    expect(await host.shutdown()).toBe(0);
    expect(host.violations).toEqual([]);
  });

  test("an offer with other registry limits is refused -32602 (octet's host and SDKs accept only 256/32)", async () => {
    const host = await TestHost.start(DIR);
    const base = host.initializeParams();
    const protocol = base.protocol as Obj;
    const reply = await host.request("initialize", { ...base, protocol: { ...protocol, limits: { max_concurrent_requests: 8, resource_refs_v1: { max_records: 128, max_registrations_per_parent: 32 } } } });
    expect(reply.error).toEqual({ code: -32602, message: "unsupported resource registry limits" });
    await host.initialize();
    expect(await host.shutdown()).toBe(0);
  });

  test("export → active on success → resolve and use → release → dispose runs the disposer once", async () => {
    const host = await TestHost.start(DIR);
    await host.initialize();
    const opened = (await host.callTool("open_counter", { label: "hits" })) as Obj;
    const ref = (opened.structured_content as { counter: Obj }).counter;
    expect(ref).toMatchObject({ type: "demo.counter" });
    expect(host.resources.issued.get(ref.$resource as string)).toMatchObject({ type: "demo.counter", released: false });
    expect(text(await host.callTool("bump", { counter: ref }))).toBe("hits=1");
    expect(text(await host.callTool("bump", { counter: ref }))).toBe("hits=2");
    expect(await host.callTool("bump", { counter: { $resource: "forged", type: "demo.counter" } })).toMatchObject({ is_error: true });
    expect(JSON.parse(text(await host.callTool("close_counter", { counter: ref })))).toEqual({ retired: true, cleanup: "pending" });
    expect(await host.callTool("bump", { counter: ref })).toMatchObject({ is_error: true, content: [{ text: "no such counter" }] });
    expect(await host.disposeResources([ref])).toEqual([{ resource: ref, status: "completed" }]);
    expect(await waitLog(host, (l) => l.message === "disposed")).toMatchObject({ label: "hits", n: 2 });
    // A second disposal of the same ref finds nothing: failed, and the disposer does not run again.
    expect(await host.disposeResources([ref])).toEqual([{ resource: ref, status: "failed" }]);
    expect(await host.shutdown()).toBe(0);
    expect(host.logs().filter((l) => l.message === "disposed").length).toBe(1);
    expect(host.violations).toEqual([]);
    expectCleanStreams(host);
  });

  test("a ref exported by a call that fails, or not returned, never becomes usable; its disposal still runs", async () => {
    const host = await TestHost.start(DIR);
    await host.initialize();
    const seen = new Set<string>();
    for (const tool of ["open_and_fail", "open_unreturned"]) {
      await host.callTool(tool);
      const token = (await waitLog(host, (l) => l.message === "exported" && !seen.has(l.token as string))).token as string;
      seen.add(token);
      const ref = { $resource: token, type: "demo.counter" };
      expect(await host.callTool("bump", { counter: ref })).toMatchObject({ is_error: true, content: [{ text: "no such counter" }] });
      expect(await host.disposeResources([ref])).toEqual([{ resource: ref, status: "completed" }]);
    }
    expect(await host.shutdown()).toBe(0);
    expect(host.logs().filter((l) => l.message === "disposed").map((l) => l.label)).toEqual(["failed", "lost"]);
  });

  test("resource/dispose with a bad reason, no refs or duplicates is -32602", async () => {
    const host = await TestHost.start(DIR);
    await host.initialize();
    const ref = { $resource: "r1", type: "demo.counter" };
    for (const params of [{ resources: [ref], reason: "gone" }, { resources: [], reason: "retired" }, { resources: [ref, ref], reason: "retired" }]) {
      expect((await host.request("resource/dispose", params)).error).toMatchObject({ code: -32602 });
    }
    expect(await host.shutdown()).toBe(0);
  });
});
