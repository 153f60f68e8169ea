import { lstatSync, realpathSync } from "node:fs";
import { basename, dirname, join, relative, sep } from "node:path";

/**
 * Symbolic links in a project the author may not have written (a cloned
 * repository): gen checks where a path really leads before writing there,
 * build refuses any link on the way to what it removes or writes.
 */

/** `path` with every link resolved (the part that does not exist yet kept as written); undefined when a link on the way leads nowhere. */
export function realPath(path: string): string | undefined {
  const rest: string[] = [];
  let existing = path;
  for (;;) {
    try {
      lstatSync(existing);
      break;
    } catch {
      if (dirname(existing) === existing) return undefined;
      rest.unshift(basename(existing));
      existing = dirname(existing);
    }
  }
  try {
    return join(realpathSync(existing), ...rest);
  } catch {
    return undefined;
  }
}

/** The first component of `path` below `root` (root itself not included) that is a symbolic link, if any. */
export function firstLink(root: string, path: string): string | undefined {
  let current = root;
  for (const part of relative(root, path).split(sep)) {
    current = join(current, part);
    try {
      if (lstatSync(current).isSymbolicLink()) return current;
    } catch {
      return undefined;
    }
  }
  return undefined;
}
