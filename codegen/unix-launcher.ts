import { inExtensionDir } from "./shell.ts";

/**
 * The entry point of a Linux or macOS bundle: octet stages only this file, so
 * it execs the compiled executable `NAME.bin` left in the extension directory
 * (see `build` in build.ts; Windows gets windows-launcher.ts).
 */
export function unixLauncher(name: string): { file: string; text: string } {
  return {
    file: "extension",
    text: ["#!/bin/sh", "# octet stages only this file; the compiled extension stays in the extension directory.", `exec ${inExtensionDir(`${name}.bin`)} "$@"`, ""].join("\n"),
  };
}
