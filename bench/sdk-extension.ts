/**
 * Benchmark subject written with the SDK, as the shared kit's candidate:
 * `echo` {text} → the same text; `progress` {count} → `count` `$/progress`
 * events (API 0.2/0.4) or notifications (API 0.1), all before the result.
 * The API version comes from OCTET_EXTENSION_API_VERSION.
 */
import { Extension } from "../src/index.ts";

const ext = new Extension({ maxConcurrentRequests: 4 });
ext.tool({ name: "echo", description: "Echo text" }, (args: { text?: string }) => ({ content: args.text ?? "" }));
ext.tool({ name: "progress", description: "Emit progress" }, async (args: { count: number }) => {
  const k = Number(args.count ?? 0);
  if (ext.apiVersion === "0.1") for (let i = 1; i <= k; i++) void ext.user.notify(`step ${i} of ${k}`);
  else for (let i = 1; i <= k; i++) void ext.progress(`step ${i}`, { current: i, total: k });
  return { content: "done" };
});
await ext.run();
