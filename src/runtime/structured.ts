/**
 * Structured tool output (API 0.2), one module per concept: the bounded
 * `output_schema` subset (`src/output-schema.ts`), validation of
 * `structured_content` against it (`structured/validate.ts`) and the result
 * bounds (`structured/result-bounds.ts`); canonical JSON lives in
 * `src/wire/canonical-json.ts`. Re-exported here for existing importers.
 */
export { checkOutputSchema, MAX_PROPERTY_NAME_BYTES, MAX_SCHEMA_DEPTH } from "../output-schema.ts";
export { MAX_VALIDATION_STEPS, validateStructured } from "./structured/validate.ts";
export {
  checkResultBounds,
  MAX_METADATA_BYTES,
  MAX_METADATA_KEY_BYTES,
  MAX_STRUCTURED_BYTES,
  MAX_VALUE_DEPTH,
  MAX_VALUE_NODES,
} from "./structured/result-bounds.ts";
export { canonicalJson } from "../wire/canonical-json.ts";
