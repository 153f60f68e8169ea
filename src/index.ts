/**
 * octet-extension: write octet extensions (legacy wire, API 0.1 and 0.2) in TypeScript on Bun.
 *
 * @example
 * import { Extension } from "octet-extension";
 * const ext = new Extension();
 * ext.tool({ name: "hello_world", description: "Greet someone" }, (args) => `Hello, ${args.name}!`);
 * await ext.run();
 */
export { Extension, type ExtensionOptions, type RunOptions } from "./runtime/extension.ts";
export { CancellationToken } from "./runtime/cancellation.ts";
export { currentCancellation, currentRequestId } from "./runtime/scope.ts";
export { RpcError, ErrorCode } from "./errors.ts";
export { Logger, type LogLevel } from "./log.ts";
export type { RequestId } from "./wire/ids.ts";
export type * from "./runtime/types.ts";
