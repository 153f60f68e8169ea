/**
 * octet-extension/testing: a strict octet host double for process-level tests.
 *
 * @example
 * import { TestHost } from "octet-extension/testing";
 * const host = await TestHost.start("path/to/extension-dir");
 * await host.initialize();
 * await host.callTool("hello_world", { name: "Ada" });
 * await host.shutdown();
 */
export { TestHost, ReplyError, HostViolation, REQUIRED_FEATURES, DEFAULT_OPTIONAL_FEATURES } from "./test-host.ts";
export type { TestHostOptions, TranscriptEntry, Responder, CommandOutput, HookOutput, RenderOutput, StatusContribution } from "./test-host.ts";
export { loadManifest, HostManifestError, ManifestError, type HostManifest } from "./manifest.ts";
export { PASSTHROUGH_ENV, STAGING_LIMIT_BYTES } from "./launch.ts";
export { TranscriptError } from "./recording-check.ts";
export { redactSecrets, SECRET_PLACEHOLDER, secretRedactor } from "./secret-redaction.ts";
export { temporaryDirectory, removeTemporaryDirectory, removeTemporaryDirectories } from "./temp-dirs.ts";
