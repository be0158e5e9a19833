/** The built-in tools the service offers. */
import { type ToolRegistry, toolRegistry } from "../service/deps.js";
import { createBuiltinTools } from "../toolkit/builtins.js";

export async function loadBuiltinTools(): Promise<ToolRegistry> {
  return toolRegistry(createBuiltinTools());
}
