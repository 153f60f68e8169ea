/**
 * The entry point of a Windows bundle (docs/tools.md "Every platform's
 * bundle"). octet stages only `[entrypoint].command` (at most 64 MiB) and, on
 * Windows, runs it with CreateProcess directly, except a Python script (a
 * `.py` file or a first line `#!…python…`), which it runs with `py -3` (or
 * python3/python): that is the one script launch octet documents and tests
 * on Windows, the way its first-party bundles ship. A compiled Bun
 * executable is over 64 MiB, so the entry is this Python script: it starts
 * `NAME.exe` from the extension directory with the same stdin, stdout and
 * stderr (the bytes never pass through Python) and exits with its status.
 * octet's job object ends both together. Unlike unix-launcher.ts it does not
 * move stdout (docs/design.md, "Known gaps": Windows).
 */
export function windowsLauncher(name: string): { file: string; text: string } {
  return {
    file: "extension",
    text: [
      "#!/usr/bin/env python3",
      "# octet stages only this file and runs it with Python on Windows; the compiled",
      "# extension stays in the extension directory and inherits stdin, stdout and stderr.",
      "import os, subprocess, sys",
      `exe = os.path.join(os.environ["OCTET_EXTENSION_DIR"], ${JSON.stringify(`${name}.exe`)})`,
      "sys.exit(subprocess.call([exe, *sys.argv[1:]]))",
      "",
    ].join("\n"),
  };
}
