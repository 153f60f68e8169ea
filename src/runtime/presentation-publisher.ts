import { negotiatesFeatures } from "../protocol.ts";
import { wireId } from "../wire/ids.ts";
import type { Caller, HostAccess, HostSession } from "./host-session.ts";
import { checkResourceOwner } from "./presentation/resource-owner.ts";
import { checkSnapshot } from "./presentation/snapshot.ts";
import type { PresentationSnapshot } from "./presentation/snapshot-types.ts";
import { apiRefusal, notDeclared } from "./refusals.ts";
import type { JsonObject, ResourceOwner } from "./types.ts";

/**
 * `presentation/update` (API 0.2, docs/protocol-0.2.md §4.5, §8.11): checks a snapshot with
 * presentation.ts's rules, keeps revisions strictly increasing for the
 * process, and ties the snapshot to the calling handler's request while it is
 * unanswered (else it is process-scoped, or owned by a `resourceOwner`).
 */
export async function publishPresentation(access: HostAccess, snapshot: PresentationSnapshot, options: { resourceOwner?: ResourceOwner } = {}): Promise<void> {
  if (!negotiatesFeatures(access.api)) throw apiRefusal("ext.presentation.publish()", "0.2 or 0.4", access.api);
  const session = access.session();
  let publisher = publishers.get(session);
  if (!publisher) publishers.set(session, (publisher = new PresentationPublisher(session)));
  await publisher.publish(snapshot, options, access.caller());
}

/** Each session's revisions (made on first use). */
const publishers = new WeakMap<HostSession, PresentationPublisher>();

/** The revisions of one session's snapshots. */
export class PresentationPublisher {
  private revision = -1;

  constructor(private readonly host: HostSession) {}

  async publish(snapshot: PresentationSnapshot, options: { resourceOwner?: ResourceOwner }, caller: Caller): Promise<void> {
    const contributes = this.host.negotiated.contributes;
    if (contributes.presentation !== true) throw notDeclared("ext.presentation.publish()", "presentation");
    // Commands registered locally count when the manifest does not list them.
    const commands = Array.isArray(contributes.commands) ? (contributes.commands as string[]) : [...this.host.registry.commands.keys()];
    checkSnapshot(snapshot, commands);
    const params: JsonObject = { snapshot };
    if (options.resourceOwner !== undefined) params.resource_owner = checkResourceOwner(options.resourceOwner);
    if (snapshot.revision <= this.revision) {
      throw new Error(`presentation revision ${snapshot.revision} must be above the last published one (${this.revision})`);
    }
    if (options.resourceOwner === undefined) {
      // Inside a handler the request is the parent; once it has settled (a timer the
      // handler left behind), the snapshot is process-scoped, as outside any handler.
      const parent = this.host.activeParent(caller);
      if (parent !== undefined) params.parent_request_id = wireId(parent);
    }
    this.revision = snapshot.revision;
    await this.host.notify("presentation/update", params);
  }
}
