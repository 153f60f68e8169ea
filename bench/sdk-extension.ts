/** Benchmark subject: echo + notification burst written with the SDK (API 0.1). */
import { Extension } from "../src/index.ts";

const ext = new Extension({ apiVersion: "0.1" });
ext.tool({ name: "echo", description: "Echo text" }, (args: { text?: string }) => ({ content: args.text ?? "" }));
ext.tool({ name: "burst", description: "Send args.count notifications" }, async (args: { count: number }) => {
  for (let i = 0; i < args.count; i++) void ext.notify(`step ${i}`);
  return { content: "done" };
});
await ext.run();
