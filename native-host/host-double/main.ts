/**
 * Entry point of the native-host double (`bin/octet-host-double`): a
 * stand-in for octet 0.8.0's `octet-host` speaking protocol 1 on stdio.
 *
 * Environment (the double takes no arguments):
 * - `OCTET_HOST_DOUBLE_SCENARIO`: a {@link Scenario} as inline JSON (value
 *   starting with `{`) or the path of a JSON file; unset = realistic host.
 * - `OCTET_HOST_DOUBLE_RECORD`: file to which each request line read is
 *   appended verbatim plus LF, synchronously, before it is processed.
 *
 * A scenario that cannot be loaded — not JSON, or failing the check of
 * `scenario-check.ts` — is reported on stderr and the double exits 2
 * before reading anything.
 */
import fs from "node:fs";
import { Host } from "./host.ts";
import { diagnostic } from "./output.ts";
import type { Scenario } from "./scenario.ts";
import { checkScenario } from "./scenario-check.ts";
import { installSignalHandlers } from "./signals.ts";

function loadScenario(value: string | undefined): Scenario {
  if (value === undefined || value === "") return {};
  const text = value.trimStart().startsWith("{") ? value : fs.readFileSync(value, "utf8");
  return checkScenario(JSON.parse(text));
}

async function main(): Promise<void> {
  let scenario: Scenario;
  try {
    scenario = loadScenario(process.env.OCTET_HOST_DOUBLE_SCENARIO);
  } catch (error) {
    await diagnostic(`cannot load OCTET_HOST_DOUBLE_SCENARIO: ${(error as Error).message}`);
    process.exit(2);
  }
  installSignalHandlers(scenario.ignoreSigterm === true);
  const recordPath = process.env.OCTET_HOST_DOUBLE_RECORD;
  const host = new Host(scenario, recordPath !== undefined && recordPath !== "" ? recordPath : undefined);
  try {
    await host.serve();
  } catch (error) {
    await diagnostic(`fatal: ${(error as Error).message}`);
    process.exit(1);
  }
}

await main();
