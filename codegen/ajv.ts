import { Ajv, type Options, type ValidateFunction } from "ajv";
import { Ajv2019 } from "ajv/dist/2019.js";
import { Ajv2020 } from "ajv/dist/2020.js";
import { integerKeyword } from "./integer-rules.ts";

/** The schema names a draft Ajv cannot check. */
export class SchemaDraftError extends Error {}

const DRAFT_07 = ["http://json-schema.org/draft-07/schema", "https://json-schema.org/draft-07/schema"];

/**
 * Strict about unknown keywords, `format` as an annotation only, all errors
 * reported, and the source kept so that a compiled check can also be written
 * out as standalone code (validators.ts). `addUsedSchema: false` keeps one
 * tool's `$id` from clashing with another's in the shared instance.
 */
const OPTIONS: Options = {
  allErrors: true,
  strict: true,
  strictTypes: false,
  strictTuples: false,
  strictRequired: false,
  validateFormats: false,
  addUsedSchema: false,
  logger: false,
  code: { source: true, esm: false, lines: false },
};

let instances = new Map<string, Ajv>();
let compiled = new WeakMap<object, ValidateFunction>();

/**
 * Start afresh (each manifest load does): Ajv numbers the functions it
 * generates per instance, so one gen run's output must not depend on what an
 * earlier run in the same process compiled.
 */
export function resetAjv(): void {
  instances = new Map();
  compiled = new WeakMap();
}

/**
 * The Ajv instance for the schema's draft (`$schema`; draft-07 when absent),
 * one per draft per process; with `integers`, one that also knows the
 * `octetInteger` keyword the validators gen writes use (integer-rules.ts).
 */
export function ajvFor(schema: Record<string, unknown>, integers = false): Ajv {
  const draft = typeof schema.$schema === "string" ? schema.$schema.replace(/#$/, "") : "";
  const known = draft === "" || DRAFT_07.includes(draft) ? "07" : draft === "https://json-schema.org/draft/2019-09/schema" ? "2019" : draft === "https://json-schema.org/draft/2020-12/schema" ? "2020" : undefined;
  if (!known) throw new SchemaDraftError(`${JSON.stringify(schema.$schema)} is not a supported JSON Schema draft`);
  const id = integers ? `${known}+integers` : known;
  let ajv = instances.get(id);
  if (!ajv) {
    ajv = known === "07" ? new Ajv(OPTIONS) : known === "2019" ? (new Ajv2019(OPTIONS) as Ajv) : (new Ajv2020(OPTIONS) as Ajv);
    if (integers) ajv.addKeyword(integerKeyword);
    instances.set(id, ajv);
  }
  return ajv;
}

/** Compile `schema` once (throws on unknown keywords); later calls return the same function. */
export function compileSchema(schema: Record<string, unknown>, integers = false): ValidateFunction {
  let fn = compiled.get(schema);
  if (!fn) {
    fn = ajvFor(schema, integers).compile(schema);
    compiled.set(schema, fn);
  }
  return fn;
}
