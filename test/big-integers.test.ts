/**
 * Integers beyond 2^53 in what the host sends reach handlers exactly (issue
 * 11): an integer literal outside ±(2^53−1) arrives as a `bigint`, every other
 * number as a `number`, and `bigint`s in results are written as exact JSON
 * integers. Fixture: test/fixtures/big-integers/.
 */
import { describe, expect, test } from "bun:test";
import { expectCleanStreams, ready } from "./helpers.ts";

const V02 = new URL("./fixtures/big-integers/big-integers-v02", import.meta.url).pathname;

const MAX_SAFE = "9007199254740991"; // 2^53 − 1
const TWO_53 = "9007199254740992";
const TWO_53_PLUS_1 = "9007199254740993";
const U64_MAX = "18446744073709551615";
const THIRTY_DIGITS = "123456789012345678901234567890";

/** Send a tool/call frame written as text, so the literals reach the extension unrounded. */
async function callRaw(host: Awaited<ReturnType<typeof ready>>, id: number, tool: string, argumentsText: string) {
  const context = JSON.stringify(host.executionContext());
  host.sendRaw(`{"jsonrpc":"2.0","id":${id},"method":"tool/call","params":{"name":"${tool}","arguments":${argumentsText},"context":${context}}}`);
  await host.waitForReply(id);
  // The reply exactly as it crossed the pipe.
  const line = host.transcript.find((e) => e.from === "extension" && e.frame !== undefined && e.frame.id === id);
  return line!.text;
}

describe("integers beyond 2^53 in tool arguments", () => {
  test("arrive as bigint with every digit; safe integers and fractions stay numbers", async () => {
    const host = await ready(V02);
    const reply = await callRaw(
      host,
      501,
      "inspect",
      `{"safe":${MAX_SAFE},"neg_safe":-${MAX_SAFE},"two53":${TWO_53},"above":${TWO_53_PLUS_1},"below":-${TWO_53_PLUS_1},"u64max":${U64_MAX},"thirty":${THIRTY_DIGITS},` +
        `"nested":{"list":[1,${U64_MAX},{"deep":-${THIRTY_DIGITS}}]},"fraction":1.5,"exp":1e30,"big_fraction":12345678901234567890.5,"zero":0,"text":"${U64_MAX}"}`,
    );
    const text = JSON.parse(reply).result.content[0].text as string;
    expect(text.split("\n")).toEqual([
      `/safe number ${MAX_SAFE}`,
      `/neg_safe number -${MAX_SAFE}`,
      `/two53 bigint ${TWO_53}`,
      `/above bigint ${TWO_53_PLUS_1}`,
      `/below bigint -${TWO_53_PLUS_1}`,
      `/u64max bigint ${U64_MAX}`,
      `/thirty bigint ${THIRTY_DIGITS}`,
      "/nested/list/0 number 1",
      `/nested/list/1 bigint ${U64_MAX}`,
      `/nested/list/2/deep bigint -${THIRTY_DIGITS}`,
      "/fraction number 1.5",
      "/exp number 1e+30",
      "/big_fraction number 12345678901234567000",
      "/zero number 0",
      `/text string ${U64_MAX}`,
    ]);
    expect(await host.shutdown()).toBe(0);
    expectCleanStreams(host);
  });

  test("come back exactly in results, as received and as computed", async () => {
    const host = await ready(V02);
    for (const [i, literal] of [MAX_SAFE, TWO_53, TWO_53_PLUS_1, `-${TWO_53_PLUS_1}`, U64_MAX, THIRTY_DIGITS].entries()) {
      const echoed = await callRaw(host, 600 + i, "echo_value", `{"value":[${literal},{"k":${literal}}]}`);
      expect(echoed).toContain(`"metadata":{"value":[${literal},{"k":${literal}}]}`);
    }
    expect(await callRaw(host, 620, "next", `{"n":${MAX_SAFE}}`)).toContain(`"metadata":{"next":${TWO_53}}`);
    expect(await callRaw(host, 621, "next", `{"n":${TWO_53_PLUS_1}}`)).toContain(`"metadata":{"next":9007199254740994}`);
    expect(await callRaw(host, 622, "next", `{"n":${U64_MAX}}`)).toContain(`"metadata":{"next":18446744073709551616}`);
    expect(await callRaw(host, 623, "next", `{"n":${THIRTY_DIGITS}}`)).toContain(`"metadata":{"next":123456789012345678901234567891}`);
    // The test host hands the same values back as bigint, so a test can compare exactly.
    expect(await host.callTool("echo_value", { value: 18446744073709551615n })).toMatchObject({ metadata: { value: 18446744073709551615n } });
    expect(await host.shutdown()).toBe(0);
    expectCleanStreams(host);
  });
});
