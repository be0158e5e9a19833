/** The tools a session's model should see now: name, description, input schema. */
import type { ServiceDeps } from "./deps.js";
import { type Principal, requireRole } from "./principal.js";
import { loadSession, sessionTools } from "./sessions.js";

export interface SessionTools {
  tools: { name: string; description: string; inputSchema: Record<string, unknown> }[];
  systemPrompt: string;
}

export function listSessionTools(
  deps: Pick<ServiceDeps, "db" | "tools">,
  p: Principal,
  sid: string,
): SessionTools {
  requireRole(p, ["agent"]);
  const session = loadSession(deps.db, p, sid);
  const tools = sessionTools(deps.tools, session).map((t) => ({
    name: t.name,
    description: t.description,
    inputSchema: t.inputSchema as Record<string, unknown>,
  }));
  return { tools, systemPrompt: "" };
}
