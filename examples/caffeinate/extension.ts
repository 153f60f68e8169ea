/**
 * TypeScript port of octet's legacy `caffeinate` example (API 0.2): counts
 * the owning session's active turns through lifecycle events and keeps a
 * sleep-inhibit helper running while any turn is active. On Linux the helper
 * is unavailable (reported by `/caffeinate`); `CAFFEINATE_HELPER` names a
 * stand-in command for development and tests.
 */
import { Extension } from "octet-extension";
import { Inhibitor } from "./inhibitor.ts";

const ext = new Extension({ apiVersion: "0.2", supportedFeatures: ["request_cancellation", "content_parts", "lifecycle_events"] });
const helper = process.env.CAFFEINATE_HELPER ? process.env.CAFFEINATE_HELPER.split(" ") : undefined;
const inhibitor = new Inhibitor(helper, (message, fields) => ext.log.warning(message, fields));
/** Active turns as `session_id\u0000turn_id`. */
const activeTurns = new Set<string>();
const turnKey = (event: Record<string, unknown>) => `${String(event.session_id ?? null)}\u0000${String(event.turn_id ?? null)}`;

ext.onLifecycle("turn/started", (event) => {
  activeTurns.add(turnKey(event));
  if (!inhibitor.start()) {
    ext.log.warning("caffeinate unavailable", { error: inhibitor.lastError ?? "the sleep inhibitor could not be started" });
  }
});

ext.onLifecycle("turn/settled", async (event) => {
  activeTurns.delete(turnKey(event));
  if (activeTurns.size === 0) await inhibitor.stop();
});

ext.onLifecycle("session/settled", async (event) => {
  const prefix = `${String(event.session_id ?? null)}\u0000`;
  for (const key of [...activeTurns]) if (key.startsWith(prefix)) activeTurns.delete(key);
  if (activeTurns.size === 0) await inhibitor.stop();
});

ext.command({ name: "caffeinate", description: "Show the macOS sleep inhibitor state", usage: "/caffeinate" }, (args) => {
  if (args.length > 0) return { text: "Usage: /caffeinate" };
  const pid = inhibitor.pid;
  if (pid !== undefined) return { text: `Caffeinate is active (pid ${pid}).` };
  if (inhibitor.lastError) return { text: `Caffeinate is unavailable: ${inhibitor.lastError}.` };
  return { text: "Caffeinate is idle; it runs while this extension observes active turns." };
});

ext.status("status", (params) =>
  inhibitor.active ? { surface: params.surface ?? "status", text: "awake", style_role: "extension.caffeinate.active", priority: 10 } : null,
);

ext.onShutdown(async () => {
  activeTurns.clear();
  await inhibitor.stop();
});

// However the process ends (EOF, shutdown), the helper does not outlive it.
process.once("exit", () => inhibitor.killNow());
await ext.run();
