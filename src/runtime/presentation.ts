/**
 * Local checks for `presentation/update` (docs/protocol-0.2.md §4.5, §6.7) and the resource
 * owner triple (§6.2), one module per concept under `presentation/`: types,
 * limits, field classes, the public-URL rule, references, the collection, the
 * snapshot and the owner. Re-exported here for existing importers.
 */
export type {
  PresentationAction,
  PresentationActivity,
  PresentationCollection,
  PresentationDetail,
  PresentationMetrics,
  PresentationNode,
  PresentationReference,
  PresentationReferenceKind,
  PresentationSnapshot,
  PresentationState,
  PresentationStatus,
  ResourceOwnerTriple,
} from "./presentation/types.ts";
export { checkSnapshot } from "./presentation/snapshot.ts";
export { checkResourceOwner } from "./presentation/resource-owner.ts";
