/**
 * octet-extension/protocol: the protocol facts the author tooling
 * (`octet-extension-tools`) checks a manifest against — name and version
 * patterns, hook names and the output-schema subset. Not needed by extension
 * code.
 */
export { API02_HOOKS, LEGACY_HOOKS } from "./runtime/registry.ts";
export { checkOutputSchema } from "./runtime/structured.ts";
export { ENV_NAME, IDENT, NAME, SEMVER } from "./testing/manifest.ts";
