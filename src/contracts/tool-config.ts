/**
 * A tenant's tool configuration, declared once: what the API accepts (and documents, by these
 * OpenAPI ids), what the DB's JSON columns hold, what the service checks and what the toolkit
 * builds tools and groups from.
 */
import { z } from "zod";

/** Model-facing tool names: what function-calling APIs accept. */
export const TOOL_NAME_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
const ToolName = z.string().regex(TOOL_NAME_PATTERN, { error: `must match ${TOOL_NAME_PATTERN.source}` });

/** A tenant's declaration of one external tool (`PUT /v1/tenants/{tid}/tools`), run by the client. */
export const ExternalToolDef = z
  .object({
    name: ToolName,
    description: z.string().min(1).max(10_000),
    inputSchema: z.record(z.string(), z.unknown()),
    readOnly: z.boolean().optional(),
  })
  .meta({ id: "ExternalTool" });
export type ExternalToolDef = z.infer<typeof ExternalToolDef>;

/** A tenant's tool group (`PUT /v1/tenants/{tid}/tool-groups`): members by name. */
export const ToolGroupDef = z
  .object({
    name: ToolName,
    description: z.string().min(1).max(4000),
    instructions: z.string().max(20_000).optional(),
    tools: z.array(z.string()).max(200),
    skills: z.array(z.string()).max(200).optional(),
    mcpServers: z.array(z.string()).max(50).optional(),
  })
  .meta({ id: "ToolGroup" });
export type ToolGroupDef = z.infer<typeof ToolGroupDef>;

const McpServerName = z.string().regex(/^[a-zA-Z0-9_-]{1,32}$/);
const McpToolNames = z.array(z.string().min(1).max(200)).max(500);
const McpSecrets = z.record(z.string().min(1).max(200), z.string().max(8192));
/** `/workspace` or a directory below it, spelled plainly (no `.`, `..`, `//` or trailing `/`). */
export const MCP_CWD = /^\/workspace(\/(?!\.\.?(\/|$))[^/\0]+)*$/;

/** What a tenant admin posts to add an MCP server (`POST /v1/tenants/{tid}/mcp-servers`). */
export const McpServerInput = z
  .discriminatedUnion("transport", [
    z.object({
      name: McpServerName,
      transport: z.literal("http"),
      url: z.string().url().max(2048),
      headers: McpSecrets.optional().meta({ description: "Stored encrypted; never returned." }),
      stateful: z.boolean().optional(),
      enableTools: McpToolNames.optional(),
      disableTools: McpToolNames.optional(),
    }),
    z.object({
      name: McpServerName,
      transport: z.literal("stdio"),
      command: z.string().min(1).max(1024).meta({ description: "Runs inside the session's sandbox." }),
      args: z.array(z.string().max(4096)).max(100).optional(),
      env: McpSecrets.optional().meta({ description: "Stored encrypted; never returned." }),
      cwd: z.string().max(1024).regex(MCP_CWD, "must be /workspace or a directory below it").optional().meta({
        description:
          "Where the server starts: by default its own private home. `/workspace` or below only for a server that needs it: the agent writes there, and `python -m` / `npx` load modules from the working directory first, so the agent's code would run with the server's env.",
      }),
      enableTools: McpToolNames.optional(),
      disableTools: McpToolNames.optional(),
    }),
  ])
  .meta({ id: "McpServerInput" });
export type McpServerInput = z.infer<typeof McpServerInput>;

/** An MCP server as the API returns it: never a header or env value, only whether there are any. */
export const McpServerView = z
  .object({
    name: z.string(),
    transport: z.enum(["http", "stdio"]),
    url: z.string().nullable(),
    command: z.string().nullable(),
    args: z.array(z.string()).nullable(),
    cwd: z
      .string()
      .nullable()
      .meta({ description: "stdio: null when the server starts in its private home." }),
    stateful: z.boolean(),
    enableTools: z.array(z.string()).nullable(),
    disableTools: z.array(z.string()).nullable(),
    hasHeaders: z.boolean(),
    hasEnv: z.boolean(),
    createdAt: z.string(),
  })
  .meta({ id: "McpServer" });
export type McpServerView = z.infer<typeof McpServerView>;

/** A tenant's skill as listed (its files stay on disk). */
export const SkillView = z
  .object({
    name: z.string(),
    description: z.string(),
    fileCount: z.number(),
    sizeBytes: z.number(),
    createdAt: z.string(),
  })
  .meta({ id: "Skill" });
export type SkillView = z.infer<typeof SkillView>;
