/**
 * TypeScript port of octet's legacy `hello-world` example (API 0.1): a tool,
 * a slash command, two hooks, prompt context, a status contribution, a tool
 * renderer and a notification.
 */
import { Extension } from "octet-extension";

const ext = new Extension();

ext.tool(
  {
    name: "hello_world",
    description: "Greet someone from an executable extension",
    parameters: {
      type: "object",
      properties: { name: { type: "string" } },
      required: ["name"],
      additionalProperties: false,
    },
  },
  async (args: { name?: string }) => {
    const name = args.name ?? "tinkerer";
    await ext.user.notify(`hello_world greeted ${name}`, { level: "success" });
    return { content: `Hello, ${name}!` };
  },
);

ext.command({ name: "hello", description: "Show a greeting notification", usage: "/hello [name]" }, (args) => ({
  text: `Hello, ${args[0] ?? "tinkerer"}!`,
}));

const carryOn = () => ({ disposition: { action: "continue" as const }, context: [], notifications: [] });
ext.hook("before_prompt", carryOn);
ext.hook("after_response", carryOn);

ext.context(() => [
  { label: "hello-world", content: "The hello-world extension is active.", placement: "system_suffix" },
]);

ext.status("status", (params) => ({
  surface: params.surface ?? "status",
  text: "hello",
  style_role: "extension.hello_world.status",
  priority: 0,
}));

ext.renderer("hello_world", (params) => ({
  segments: [{ text: `hello_world · ${params.output || "waiting"}`, style_role: "extension.hello_world.tool" }],
}));

await ext.run();
