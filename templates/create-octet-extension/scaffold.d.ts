/** Where octet-extension comes from and whether Bun is a dev dependency (scaffold.js). */
export interface ScaffoldOptions {
  source?: "registry" | "link";
  withBun?: boolean;
}

/** Versions the scaffold depends on. */
export const VERSIONS: { kit: string; bun: string; typescript: string };

/** The files of a new extension project, by path relative to it. */
export function files(name: string, options?: ScaffoldOptions): Record<string, string>;

/** Create the project directory `target` (its basename names the extension); returns its path. */
export function scaffold(target: string, options?: ScaffoldOptions): string;
