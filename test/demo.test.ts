import { expect, test } from "bun:test";

test("npm run demo drives hello-world end to end and exits 0", async () => {
  const proc = Bun.spawn([process.execPath, new URL("../scripts/demo.ts", import.meta.url).pathname], { stdout: "pipe", stderr: "pipe", env: { ...process.env, NO_COLOR: "1" } });
  const out = await new Response(proc.stdout).text();
  expect(await proc.exited).toBe(0);
  for (const method of ["initialize", "tool/call", "command/execute", "hook/run", "context/collect", "status/collect", "tool/render", "shutdown"]) {
    expect(out).toContain(`"method":"${method}"`);
  }
  expect(out).toContain('"content":"Hello, Ada!"');
  expect(out).toContain("exit status 0");
  expect(out).toContain("no host violations");
});
