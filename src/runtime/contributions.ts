import { notDeclared } from "./refusals.ts";
import type { ServiceHost } from "./services.ts";
import type { ContextEntry, NotificationParams, StatusEntry, Surface } from "./types.ts";
import { checkContextEntry, checkStatusEntry, notificationParams } from "./validate.ts";

/**
 * Extension→host notifications the manifest declares (spec §4.1–§4.4):
 * user notifications and pushed context and status contributions. Arguments
 * are checked first (plain `Error`), then the declaration (`-32601`);
 * nothing is written when a check fails.
 */

/** `notification`; needs `contributes.notifications = true`. */
export function notify(host: ServiceHost, message: string, options: { level?: NotificationParams["level"]; title?: string } = {}): Promise<void> {
  // Not `async`: a burst of notifications shares its batch's promise instead of one per call.
  try {
    const params = notificationParams(message, options.level ?? "info", options.title);
    const live = host.initialized();
    if (live.session.contributes.notifications !== true) throw notDeclared("ext.notify()", "notifications");
    return live.hostRequests.notify("notification", params);
  } catch (error) {
    return Promise.reject(error);
  }
}

/** `context/contribution`; needs `contributes.context = true`. */
export async function contributeContext(host: ServiceHost, entry: ContextEntry): Promise<void> {
  checkContextEntry(entry);
  const live = host.initialized();
  if (live.session.contributes.context !== true) throw notDeclared("ext.contributeContext()", "context");
  await live.hostRequests.notify("context/contribution", { ...entry });
}

/** `status/contribution` for a surface declared in `contributes.ui`. */
export async function contributeStatus(host: ServiceHost, entry: StatusEntry & { surface: Surface; text: string }): Promise<void> {
  const live = host.initialized();
  checkStatusEntry(entry, live.session.contributes.ui);
  await live.hostRequests.notify("status/contribution", { ...entry });
}
