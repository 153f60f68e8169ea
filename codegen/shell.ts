/**
 * Text written into a shell script (gen's dev entry point, build's launcher):
 * every literal goes through {@link shellQuote}, so no character of a path or
 * name is ever read by the shell as syntax.
 */

/** `text` as one POSIX shell word: in single quotes, each `'` written as `'\''`. */
export function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/** The shell word for `file` inside the extension directory octet names in OCTET_EXTENSION_DIR. */
export function inExtensionDir(file: string): string {
  return `"$OCTET_EXTENSION_DIR"/${shellQuote(file)}`;
}
