import type { HostAccess } from "./host-session.ts";
import { notDeclared } from "./refusals.ts";
import type { ContextEntry, NotificationParams, StatusEntry, Surface } from "./types.ts";
import { checkContextEntry, checkStatusEntry, notificationParams } from "./contribution-checks.ts";

/**
 * Extension→host notifications the manifest declares (docs/protocol-0.2.md §4.1–§4.4):
 * user notifications and pushed context and status contributions. Arguments
 * are checked first (plain `Error`), then the declaration (`-32601`);
 * nothing is written when a check fails.
 */

/** `notification`; needs `contributes.notifications = true`. */
export function notify(access: HostAccess, message: string, options: { level?: NotificationParams["level"]; title?: string } = {}): Promise<void> {
  // Not `async`: a burst of notifications shares its batch's promise instead of one per call.
  try {
    const params = notificationParams(message, options.level ?? "info", options.title);
    const host = access.session();
    if (host.negotiated.contributes.notifications !== true) throw notDeclared("ext.user.notify()", "notifications");
    return host.notify("notification", params);
  } catch (error) {
    return Promise.reject(error);
  }
}

/** `context/contribution`; needs `contributes.context = true`. */
export async function contributeContext(access: HostAccess, entry: ContextEntry): Promise<void> {
  checkContextEntry(entry);
  const host = access.session();
  if (host.negotiated.contributes.context !== true) throw notDeclared("ext.contribute.context()", "context");
  await host.notify("context/contribution", { ...entry });
}

/** `status/contribution` for a surface declared in `contributes.ui`. */
export async function contributeStatus(access: HostAccess, entry: StatusEntry & { surface: Surface; text: string }): Promise<void> {
  const host = access.session();
  checkStatusEntry(entry, host.negotiated.contributes.ui);
  await host.notify("status/contribution", { ...entry });
}
