/**
 * The test host's provider ingress (src/testing/v03/provider-host.ts) is as
 * strict as octet's: a scripted provider, not written with the runtime,
 * breaks one provider/event rule per mode and the host reports it as fatal.
 */
import { afterEveryTest } from "../setup.ts";
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { TestHost, temporaryDirectory } from "octet-extension/testing";

const FAKE = new URL("../fixtures/api03-provider-fake", import.meta.url).pathname;
const hosts: TestHost[] = [];
afterEveryTest(() => {
  for (const host of hosts.splice(0)) host.kill();
});

async function start(mode: string): Promise<TestHost> {
  const workspace = temporaryDirectory("octet-v03-provider-");
  writeFileSync(join(workspace, "mode"), mode);
  const host = await TestHost.start(FAKE, { workspace, requestTimeoutMs: 5_000 });
  hosts.push(host);
  await host.initialize();
  return host;
}

const params = { model_id: "m", provider_id: "p", request: {} };

describe("provider/event rules of the test host", () => {
  test("control: a correct stream passes and is collected to its terminal event", async () => {
    const host = await start("good");
    const outcome = await host.providers.stream(params);
    expect(outcome).toMatchObject({ accepted: true, ended: "finished", events: [{ kind: "started", sequence: 0 }, { kind: "finished", sequence: 1 }] });
    expect(await host.shutdown()).toBe(0);
    expect(host.violations).toEqual([]);
  });

  const breaks: [string, RegExp][] = [
    ["gap", /sequence 2, expected 1 \(contiguous from 0\)/],
    ["after-finish", /after it ended \(finished\)/],
    ["unknown-stream", /stream "never-opened", which the host did not open/],
    ["big", /payload of 65\d{3} canonical bytes exceeds 65536/],
    ["extra-member", /payload member "name" is not decoded by octet/],
    ["float-index", /payload.index must be an integer ≥ 0/],
    ["wrong-stream-id", /stream_id "other" is not the requested/],
  ];
  for (const [mode, message] of breaks) {
    test(`${mode} is fatal`, async () => {
      const host = await start(mode);
      await host.providers.stream(params, { timeoutMs: 1_500 }).catch(() => undefined);
      await Bun.sleep(100);
      expect(host.violations.join("\n")).toMatch(message);
    });
  }

  test("an event after provider/cancel is fatal", async () => {
    const host = await start("hang");
    const run = host.providers.stream({ ...params, stream_id: "s1" });
    await host.waitForFrame((f) => f.method === "provider/event");
    host.providers.cancel("s1");
    expect((await run).ended).toBe("cancelled");
    expect(host.violations).toEqual([]);
    const again = await start("after-cancel");
    const second = again.providers.stream({ ...params, stream_id: "s2" });
    await again.waitForFrame((f) => f.method === "provider/event");
    again.providers.cancel("s2"); // the fake answers the cancel with one more event
    expect((await second).ended).toBe("cancelled");
    await Bun.sleep(200);
    expect(again.violations.join("\n")).toMatch(/provider\/event for stream s2 after it was cancelled/);
  });
});
