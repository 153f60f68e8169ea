import { type JsonRecord, array, fail, has, object, required } from "../../check.ts";
import { label, optionalLabel } from "./fields.ts";
import { MAX_REFERENCES } from "./limits.ts";
import { publicUrl } from "./public-url.ts";

const REFERENCE_KINDS: readonly string[] = ["session", "artifact", "resource", "url"];

/** The `references` of an activity, node or detail, when present: ≤ 8, unique by (kind, id) (docs/protocol-0.2.md §6.7). */
export function references(obj: JsonRecord, path: string): void {
  if (!has(obj, "references")) return;
  const p = `${path}.references`;
  const list = array(obj.references, p, MAX_REFERENCES);
  const seen = new Set<string>();
  list.forEach((item, i) => {
    const rp = `${p}[${i}]`;
    const ref = object(item, rp, ["kind", "id", "label"]);
    const kind = required(ref, "kind", rp);
    if (typeof kind !== "string" || !REFERENCE_KINDS.includes(kind)) fail(`${rp}.kind`, `must be one of ${REFERENCE_KINDS.join(", ")}`);
    const target = label(required(ref, "id", rp), `${rp}.id`);
    optionalLabel(ref, "label", rp);
    if (kind === "url") publicUrl(target, `${rp}.id`);
    const key = `${kind}\u0000${target}`;
    if (seen.has(key)) fail(rp, "duplicate reference (references must be unique)");
    seen.add(key);
  });
}
