import { Ajv, type Options } from "ajv";
import { Ajv2019 } from "ajv/dist/2019.js";
import { Ajv2020 } from "ajv/dist/2020.js";

/** The schema names a draft Ajv cannot check. */
export class SchemaDraftError extends Error {}

const DRAFT_07 = ["http://json-schema.org/draft-07/schema", "https://json-schema.org/draft-07/schema"];

/**
 * An Ajv instance for the schema's draft (`$schema`; draft-07 when absent),
 * strict about unknown keywords, with `format` as an annotation only.
 * With `code`, it compiles to standalone source (see validators.ts).
 */
export function ajvFor(schema: Record<string, unknown>, code: boolean) {
  const options: Options = {
    allErrors: true,
    strict: true,
    strictTypes: false,
    strictTuples: false,
    strictRequired: false,
    validateFormats: false,
    logger: false,
    ...(code ? { code: { source: true, esm: false, lines: false } } : {}),
  };
  const draft = typeof schema.$schema === "string" ? schema.$schema.replace(/#$/, "") : undefined;
  if (draft === undefined || DRAFT_07.includes(draft)) return new Ajv(options);
  if (draft === "https://json-schema.org/draft/2019-09/schema") return new Ajv2019(options);
  if (draft === "https://json-schema.org/draft/2020-12/schema") return new Ajv2020(options);
  throw new SchemaDraftError(`${JSON.stringify(schema.$schema)} is not a supported JSON Schema draft`);
}
