import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { basename, join, resolve } from "node:path";

/** What a new extension project holds (keys are paths relative to it). */
export function files(name: string, dependency: string): Record<string, string> {
  return {
    "manifest.toml": `# The manifest you edit; \`bun run gen\` writes extension.toml (what octet reads) from it.
name = "${name}"
version = "0.1.0"
api_version = "0.2"
description = "An octet extension"

[tools.hello]
description = "Greet someone by name"
parameters = { type = "object", properties = { name = { type = "string", description = "Who to greet" } }, required = ["name"] }

[contributes]
notifications = true
`,
    "src/extension.ts": `import { Extension } from "octet-extension";
import { type Handlers, register } from "./extension.gen.ts";

/** One handler per tool and command declared in manifest.toml (\`bun run gen\` adds stubs). */
export const handlers = {
  tools: {
    hello: (args) => \`Hello, \${args.name}!\`,
  },
  commands: {},
} satisfies Handlers;

await register(new Extension(), handlers).run();
`,
    "test/extension.test.ts": `import { expect, test } from "bun:test";
import { TestHost } from "octet-extension/testing";

// Starts the extension as octet does (staged entry point, cleared environment) and calls it.
test("hello greets by name", async () => {
  const host = await TestHost.start(new URL("..", import.meta.url).pathname);
  await host.initialize();
  expect(await host.callTool("hello", { name: "Ada" })).toEqual({ content: [{ type: "text", text: "Hello, Ada!" }], is_error: false, metadata: {} });
  expect(await host.shutdown()).toBe(0);
});
`,
    "test/setup.ts": `import { afterAll } from "bun:test";
import { removeTemporaryDirectories } from "octet-extension/testing";

// bun test ends without the process exit event: remove the test host's temporary workspaces here.
afterAll(removeTemporaryDirectories);
`,
    "bunfig.toml": `# The dev entry point (./extension) also runs Bun with this file: keep test-only settings under [test].
[test]
preload = ["./test/setup.ts"]
`,
    "package.json": `${JSON.stringify(
      {
        name,
        version: "0.1.0",
        private: true,
        type: "module",
        scripts: { gen: "octet-extension gen", check: "octet-extension check", test: "bun test", build: "octet-extension build", postinstall: "octet-extension gen" },
        dependencies: { "octet-extension": dependency },
      },
      null,
      2,
    )}\n`,
    "tsconfig.json": `${JSON.stringify(
      { compilerOptions: { target: "ESNext", module: "Preserve", moduleResolution: "bundler", strict: true, noEmit: true, allowImportingTsExtensions: true, skipLibCheck: true } },
      null,
      2,
    )}\n`,
    ".gitignore": "node_modules/\ndist/\n",
    "README.md": `# ${name}

An [octet](https://github.com/skaft-software/octet) extension written with \`octet-extension\`.

    bun install        # also runs \`bun run gen\`
    bun test           # starts the extension as octet would and calls it
    bun run build      # dist/${name}/: copy it into ~/.octet/extensions/

Declare tools and commands in \`manifest.toml\`, run \`bun run gen\`, and implement the stub it adds
to \`src/extension.ts\`. \`bun run check\` fails when generated files are stale (use it in CI).
`,
  };
}

const NAME = /^[a-z][a-z0-9-]{0,63}$/;

/** Create the project directory `target`; its basename is the extension name. */
export function scaffold(target: string, options: { dependency?: string } = {}): string {
  const dir = resolve(target);
  const name = basename(dir);
  if (!NAME.test(name)) throw new Error(`"${name}" cannot name an octet extension: use 1-64 of a-z, 0-9 and '-', starting with a letter`);
  if (existsSync(dir) && readdirSync(dir).length > 0) throw new Error(`${dir} exists and is not empty`);
  for (const [path, text] of Object.entries(files(name, options.dependency ?? "^0.1.0"))) {
    mkdirSync(join(dir, path, ".."), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}
