import { PROTOCOL_FD_VARIABLE } from "octet-extension/protocol";
import { inExtensionDir } from "./shell.ts";

/**
 * The `exec` line of a `#!/bin/sh` launcher, for `words` already quoted for
 * the shell: the program gets the real stdout on fd 3, named with the
 * launcher's `$$` (which `exec` keeps) in OCTET_EXTENSION_PROTOCOL_FD, and
 * fd 1 is stderr before it runs its first instruction, so nothing it prints
 * while loading can reach the protocol stream (docs/design.md, stdio).
 */
export function protocolExec(words: string): string {
  return `${PROTOCOL_FD_VARIABLE}="3:$$" exec ${words} 3>&1 1>&2`;
}

/**
 * The entry point of a Linux or macOS bundle: octet stages only this file, so
 * it execs the compiled executable `NAME.bin` left in the extension directory
 * (see `build` in build.ts; Windows gets windows-launcher.ts).
 */
export function unixLauncher(name: string): { file: string; text: string } {
  return {
    file: "extension",
    text: [
      "#!/bin/sh",
      "# octet stages only this file; the compiled extension stays in the extension directory.",
      "# It writes frames to fd 3, the real stdout; its fd 1 is stderr from the start.",
      protocolExec(`${inExtensionDir(`${name}.bin`)} "$@"`),
      "",
    ].join("\n"),
  };
}
