/** The built-in tools the service offers: the six sandbox tools, then the four task tools (basic by default). */
import { type ToolRegistry, toolRegistry } from "../service/ports.js";
import { createBuiltinTools } from "../toolkit/builtins.js";
import { createTaskTools } from "../toolkit/tasks/task-tools.js";

export async function loadBuiltinTools(): Promise<ToolRegistry> {
  return toolRegistry([...createBuiltinTools(), ...createTaskTools()]);
}
