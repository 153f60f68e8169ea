import { describe, expect, test } from "bun:test";
import { Logger } from "../../src/log.ts";
import { HostRequests } from "../../src/runtime/host-requests.ts";
import { FrameWriter } from "../../src/wire/frame-writer.ts";

describe("extension → host requests at the stop (src/runtime/host-requests.ts)", () => {
  function requests() {
    const written: string[] = [];
    const sink = { write: (chunk: string | Uint8Array) => (written.push(String(chunk)), chunk.length), flush: () => 0 };
    const hostRequests = new HostRequests("0.2", new FrameWriter(sink), new Logger(() => {}), 1 << 20);
    const sent = (method: string) => written.join("").split("\n").filter((line) => line.includes(`"method":"${method}"`)).length;
    return { hostRequests, sent };
  }

  test("requests waiting for one of the 128 slots are refused with the rest, never written after the stop", async () => {
    const { hostRequests, sent } = requests();
    const calls = Array.from({ length: 130 }, () => hostRequests.request("policy/evaluate", { intent: {} }).catch((error: Error) => error.message));
    await Bun.sleep(0);
    expect(sent("policy/evaluate")).toBe(128);
    hostRequests.failAll("extension stopped");
    expect(await Promise.all(calls)).toEqual(Array(130).fill("extension stopped"));
    expect(sent("policy/evaluate")).toBe(128);
    expect(hostRequests.size).toBe(0);
  });

  test("the same for the 8 child-worker slots", async () => {
    const { hostRequests, sent } = requests();
    const calls = Array.from({ length: 10 }, () => hostRequests.request("confirmation/request", { message: "ok?" }).catch((error: Error) => error.message));
    await Bun.sleep(0);
    expect(sent("confirmation/request")).toBe(8);
    hostRequests.failAll("extension stopped");
    expect(await Promise.all(calls)).toEqual(Array(10).fill("extension stopped"));
    expect(sent("confirmation/request")).toBe(8);
  });
});
