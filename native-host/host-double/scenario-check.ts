/**
 * The check of a scenario when it is loaded (see `scenario.ts`): every key
 * must be known and every value of the documented type, so a misspelt step
 * fails loudly instead of silently doing nothing. Errors name the place,
 * e.g. `scenario.runs[0][2].sleepMs: must be a non-negative number`.
 */
import os from "node:os";
import { buildCatalog, type CatalogEntry } from "./catalog.ts";
import type { Scenario } from "./scenario.ts";

type Check = (value: unknown, at: string) => void;

function fail(at: string, message: string): never {
  throw new Error(`${at}: ${message}`);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

const string: Check = (v, at) => void (typeof v === "string" || fail(at, "must be a string"));
const boolean: Check = (v, at) => void (typeof v === "boolean" || fail(at, "must be a boolean"));
const isTrue: Check = (v, at) => void (v === true || fail(at, "must be true"));
const object: Check = (v, at) => void (isObject(v) || fail(at, "must be an object"));
const nonNegative: Check = (v, at) => void ((typeof v === "number" && Number.isFinite(v) && v >= 0) || fail(at, "must be a non-negative number"));
const integer =
  (min: number, max = Number.MAX_SAFE_INTEGER): Check =>
  (v, at) =>
    void ((Number.isSafeInteger(v) && (v as number) >= min && (v as number) <= max) || fail(at, `must be an integer from ${min} to ${max}`));
const arrayOf =
  (item: Check, nonEmpty = false): Check =>
  (v, at) => {
    if (!Array.isArray(v)) fail(at, "must be an array");
    if (nonEmpty && v.length === 0) fail(at, "must not be empty");
    v.forEach((x, i) => item(x, `${at}[${i}]`));
  };
const oneOf =
  (...allowed: string[]): Check =>
  (v, at) =>
    void ((typeof v === "string" && allowed.includes(v)) || fail(at, `must be one of ${allowed.join(", ")}`));
const signalName: Check = (v, at) => void ((typeof v === "string" && Object.hasOwn(os.constants.signals, v)) || fail(at, "must be a signal name such as SIGKILL"));
const envName: Check = (v, at) => void ((typeof v === "string" && /^[A-Za-z_][A-Za-z0-9_]*$/.test(v)) || fail(at, "must be an environment variable name"));
const nullableString: Check = (v, at) => void (v === null || typeof v === "string" || fail(at, "must be a string or null"));

/** Check `value`'s keys: `required` must be present, nothing outside `required` and `optional` may be. */
function fields(value: unknown, at: string, required: Record<string, Check>, optional: Record<string, Check> = {}): void {
  if (!isObject(value)) fail(at, "must be an object");
  for (const [key, check] of Object.entries(required)) {
    if (!Object.hasOwn(value, key)) fail(at, `missing key "${key}"`);
    check(value[key], `${at}.${key}`);
  }
  for (const [key, v] of Object.entries(value)) {
    if (Object.hasOwn(required, key)) continue;
    const check = Object.hasOwn(optional, key) ? optional[key] : undefined;
    if (check === undefined) fail(at, `unknown key ${JSON.stringify(key)}`);
    check(v, `${at}.${key}`);
  }
}

const offsets = arrayOf(integer(0));

/** Each step kind, by its discriminating key: the checks of its required keys (the discriminator first) and of its optional keys. */
const STEP_KINDS: Readonly<Record<string, { required: Record<string, Check>; optional?: Record<string, Check> }>> = {
  event: { required: { event: string }, optional: { data: object, envelope: object, splitAt: offsets } },
  defaultRun: { required: { defaultRun: isTrue }, optional: { answer: string, envPresence: arrayOf(envName) } },
  accepted: { required: { accepted: isTrue } },
  raw: { required: { raw: string }, optional: { splitAt: offsets } },
  paddedEvent: { required: { paddedEvent: string, bytes: integer(1) } },
  stderr: { required: { stderr: string }, optional: { repeat: integer(0) } },
  sleepMs: { required: { sleepMs: nonNegative } },
  stall: { required: { stall: isTrue } },
  exit: { required: { exit: integer(0, 255) } },
  signal: { required: { signal: signalName } },
  spawn: { required: { spawn: arrayOf(string, true) } },
};

const step: Check = (value, at) => {
  if (!isObject(value)) fail(at, "a step must be an object");
  const kinds = Object.keys(value).filter((key) => Object.hasOwn(STEP_KINDS, key));
  if (kinds.length === 0) {
    const keys = Object.keys(value).map((k) => JSON.stringify(k)).join(", ");
    fail(at, `not a step (keys ${keys}); a step has one of ${Object.keys(STEP_KINDS).join(", ")}`);
  }
  if (kinds.length > 1) fail(at, `a step has exactly one of ${kinds.join(", ")}`);
  const kind = STEP_KINDS[kinds[0] as string];
  if (kind !== undefined) fields(value, at, kind.required, kind.optional);
  if (value.answer !== undefined && value.envPresence !== undefined) fail(at, "a defaultRun has answer or envPresence, not both");
};

const steps = arrayOf(step);

const catalogEntry: Check = (value, at) => {
  fields(
    value,
    at,
    { id: string },
    {
      provider: string,
      api_name: string,
      display_name: nullableString,
      protocol: oneOf("OpenAiChat", "OpenAiResponses", "AnthropicMessages"),
      context_window: integer(1),
      max_output_tokens: integer(1),
      tools: boolean,
      vision: boolean,
      audio: boolean,
      reasoning: boolean,
    },
  );
  const id = (value as CatalogEntry).id;
  if (id.trim() === "" || id.trim() !== id) fail(`${at}.id`, "must be a non-empty id without surrounding whitespace");
};

/** The merged catalog must hold only models the real catalog would accept. */
function checkCatalog(entries: readonly CatalogEntry[]): void {
  for (const model of buildCatalog(entries)) {
    const at = `scenario.catalog: model ${JSON.stringify(model.id)}`;
    if (model.audio && model.protocol !== "OpenAiChat") fail(at, "native audio input needs protocol OpenAiChat");
    if (model.max_output_tokens > model.context_window) fail(at, "max_output_tokens must not exceed context_window");
  }
}

/** `value` as a {@link Scenario}, or an error naming the first problem. */
export function checkScenario(value: unknown): Scenario {
  fields(
    value,
    "scenario",
    {},
    {
      preamble: steps,
      hello: steps,
      helloData: object,
      catalog: arrayOf(catalogEntry),
      models: steps,
      runs: arrayOf(steps),
      shutdown: steps,
      ignoreSigterm: boolean,
    },
  );
  const scenario = value as Scenario;
  if (scenario.catalog !== undefined) checkCatalog(scenario.catalog);
  return scenario;
}
