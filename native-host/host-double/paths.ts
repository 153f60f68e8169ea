/**
 * Path canonicalisation as the host does it (docs/native-host-protocol.md §6.3 "Paths"):
 * relative values resolve against the double's own working directory,
 * symlinks are resolved, containment compares canonical paths.
 */
import fs from "node:fs";
import path from "node:path";

/** The canonical path of an existing file or directory, or undefined. */
export function canonical(p: string): string | undefined {
  try {
    return fs.realpathSync(path.resolve(p));
  } catch {
    return undefined;
  }
}

export function isDirectory(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/** True when `child` is `parent` or lies below it (both canonical). */
export function isInside(child: string, parent: string): boolean {
  const relative = path.relative(parent, child);
  return relative === "" || (!relative.startsWith("..") && !path.isAbsolute(relative));
}

/**
 * True when a path has a `..` component. `.` components do not count:
 * Rust's `Path::components` drops them (except a leading one, which
 * cannot occur once the path is joined to the absolute workspace).
 */
export function hasParentComponent(p: string): boolean {
  return p.split("/").includes("..");
}

/**
 * The canonical form of a path whose tail may not exist yet: the longest
 * existing ancestor is canonicalised and the missing components appended.
 */
export function canonicalWithMissingTail(p: string): string {
  const absolute = path.resolve(p);
  const missing: string[] = [];
  let current = absolute;
  for (;;) {
    const real = canonical(current);
    if (real !== undefined) return path.join(real, ...missing.reverse());
    const parent = path.dirname(current);
    if (parent === current) return absolute;
    missing.push(path.basename(current));
    current = parent;
  }
}
