/**
 * TypeScript port of octet's legacy `local-model-workflow` example (API 0.1):
 * compact-workflow guidance as system-suffix context (hook and context
 * provider), a status line naming the model and skills, and one notification
 * when prompt shaping first activates in this process.
 */
import { Extension, type ExecutionContext } from "octet-extension";

const ext = new Extension();
let notified = false;

/** The model's last path segment: `ollama/qwen2.5-coder:7b` → `qwen2.5-coder:7b`. */
function modelLabel(context: ExecutionContext): string {
  const model = context.host?.model || "local model";
  return model.split("/").at(-1)!;
}

function skillNames(context: ExecutionContext): string[] {
  return (context.host?.active_skills ?? []).map((skill) => skill.name || skill.id).filter(Boolean).map(String);
}

function workspaceName(context: ExecutionContext): string {
  if (!context.workspace) return "workspace";
  const parts = context.workspace.split("/").filter((p) => p !== "" && p !== ".");
  return parts.at(-1) ?? "";
}

function workflowContext(context: ExecutionContext) {
  const skills = skillNames(context);
  const content =
    `Local-model workflow is active for ${modelLabel(context)} in ${workspaceName(context)}. ` +
    "Keep plans and tool output compact, inspect before editing, and ask for clarification when ambiguity would cause broad changes. " +
    `Active skills: ${skills.length ? skills.join(", ") : "none"}.`;
  return { label: "local-model-workflow", content, placement: "system_suffix" as const };
}

ext.hook("before_prompt", async (_payload, ctx) => {
  if (!notified) {
    await ext.user.notify(`Prompt shaping is enabled for ${modelLabel(ctx.context)}.`, { title: "Local workflow active" });
    notified = true;
  }
  return { disposition: { action: "continue" }, context: [workflowContext(ctx.context)], notifications: [] };
});

ext.context((params) => [workflowContext(params.context ?? {})]);

ext.status("status", (params) => {
  const context = params.context ?? {};
  const count = skillNames(context).length;
  return {
    surface: params.surface ?? "status",
    text: `local · ${modelLabel(context)} · ${count} ${count === 1 ? "skill" : "skills"}`,
    style_role: "extension.local_model_workflow.status",
    priority: 20,
  };
});

await ext.run();
