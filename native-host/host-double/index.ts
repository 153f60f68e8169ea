/**
 * `octet-native-host/testing`: the host double, a stand-in for octet 0.8.0's
 * `octet-host` (native-host protocol 1) for an application's tests. Launch
 * {@link hostDoublePath} as the host and script it with {@link scenarioEnv}.
 *
 * @example
 * ```ts
 * import { minimalEnv, NativeHost } from "octet-native-host";
 * import { hostDoublePath, scenarioEnv } from "octet-native-host/testing";
 *
 * const host = await NativeHost.launch({
 *   path: hostDoublePath,
 *   env: { ...minimalEnv(), ...scenarioEnv({ runs: [[{ defaultRun: true, answer: "42" }]] }) },
 * });
 * ```
 */
import { join } from "node:path";
import type { Scenario } from "./scenario.ts";

export type { EnvelopePatch, Scenario, Step } from "./scenario.ts";
export type { CatalogEntry } from "./catalog.ts";

/** Absolute path of the `octet-host-double` executable. It runs `bun` from its `PATH` (or `$OCTET_HOST_DOUBLE_BUN`). */
export const hostDoublePath: string = join(import.meta.dir, "../bin/octet-host-double");

/** Longest inline scenario: Linux caps one environment string at 128 KiB. */
const INLINE_LIMIT = 100_000;

/**
 * The variables that choose the double's behaviour: `OCTET_HOST_DOUBLE_SCENARIO`
 * (the scenario as inline JSON) and, with `record`, `OCTET_HOST_DOUBLE_RECORD`
 * (a file that receives every request line the double reads).
 */
export function scenarioEnv(scenario: Scenario = {}, record?: string): Record<string, string> {
  const json = JSON.stringify(scenario);
  if (json.length > INLINE_LIMIT) {
    throw new Error(`scenarioEnv: the scenario is ${json.length} characters as JSON (inline limit ${INLINE_LIMIT}); write it to a file and set OCTET_HOST_DOUBLE_SCENARIO to that file's path`);
  }
  const env: Record<string, string> = { OCTET_HOST_DOUBLE_SCENARIO: json };
  if (record !== undefined) env.OCTET_HOST_DOUBLE_RECORD = record;
  return env;
}
