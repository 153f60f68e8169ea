/**
 * Benchmark subject written with the SDK: `echo`, and `burst`, which streams
 * `args.count` notifications (API 0.1) or `$/progress` events (API 0.2).
 * The API version comes from OCTET_EXTENSION_API_VERSION.
 */
import { Extension } from "../src/index.ts";

const ext = new Extension({ maxConcurrentRequests: 4 });
ext.tool({ name: "echo", description: "Echo text" }, (args: { text?: string }) => ({ content: args.text ?? "" }));
ext.tool({ name: "burst", description: "Stream args.count notifications or progress events" }, async (args: { count: number }) => {
  if (ext.apiVersion === "0.1") for (let i = 0; i < args.count; i++) void ext.notify(`step ${i}`);
  else for (let i = 0; i < args.count; i++) void ext.progress(`step ${i}`, { current: i });
  return { content: "done" };
});
await ext.run();
