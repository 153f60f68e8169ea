import { expect, test } from "bun:test";
import { closeSync, fstatSync, openSync, writeSync } from "node:fs";
import { openStrayFile, StrayReader } from "../../src/wire/stray-output.ts";

test("a stray-output reader reads only what was added, and truncates its file once it has caught up past 4 MiB", () => {
  const file = openStrayFile("test");
  expect(file).toBeDefined();
  const { read, write } = file!;
  const lines: string[] = [];
  const reader = new StrayReader(read, write, (line) => lines.push(line));
  try {
    expect(reader.drain()).toBe(false);
    writeSync(write, "first\nsecond\n");
    expect(reader.drain()).toBe(true);
    expect(lines).toEqual(["first", "second"]);
    expect(reader.drain()).toBe(false);
    expect(lines).toEqual(["first", "second"]);

    // 5 MiB in 1 KiB lines: read 1 MiB per turn, then the caught-up file is emptied.
    const line = "x".repeat(1023) + "\n";
    for (let i = 0; i < 5 * 1024; i++) writeSync(write, line);
    let turns = 0;
    while (reader.drain()) turns++;
    expect(turns).toBeGreaterThanOrEqual(5);
    expect(lines.length).toBe(2 + 5 * 1024);
    expect(fstatSync(read).size).toBe(0);

    // Writes after the truncation are read from the start of the file again.
    writeSync(write, "after\n");
    expect(reader.drain()).toBe(true);
    expect(lines.at(-1)).toBe("after");
  } finally {
    closeSync(read);
    closeSync(write);
  }
});
