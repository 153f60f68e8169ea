/** octet-extension-tools: the author tooling behind `octet-extension gen | check | build | call`. */
export { gen, type GenReport } from "./gen.ts";
export { build, type BuildResult } from "./build.ts";
export { call } from "./call.ts";
export { loadAuthorManifest, AuthorManifestError, ManifestError, type AuthorManifest, type ToolSpec, type CommandSpec } from "./manifest.ts";
export { renderHostManifest } from "./host-manifest.ts";
export { SourceError } from "./source.ts";
export { ToolError } from "./errors.ts";
