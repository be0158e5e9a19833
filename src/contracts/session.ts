/** The API's session, declared once: the service's view of a session row and the OpenAPI `Session`. */
import { z } from "zod";
import { PermissionModeSchema } from "../permission/types.js";
import { RuleStrings } from "./tenant.js";

export const SessionView = z
  .object({
    id: z.string(),
    mode: PermissionModeSchema,
    cwd: z.string(),
    home: z.string(),
    workingDirectories: z.array(z.string()).meta({
      description:
        "the working directories as set on the session (stored); see effectiveWorkingDirectories for those that count",
    }),
    effectiveWorkingDirectories: z.array(z.string()).meta({
      description:
        "the working directories that count now: those of workingDirectories inside the tenant's " +
        "workingDirectoryRoots (a directory set before the roots narrowed is ignored by decisions and runs)",
    }),
    // A deleted session is never served (404); only the session list shows `deleted` ones.
    status: z.enum(["active", "deleted"]),
    rules: RuleStrings,
    tools: z.array(z.string()).meta({ description: "the tools this session offers" }),
    hostId: z
      .string()
      .optional()
      .meta({ description: "the worker host holding the session's sandbox; absent until its first call" }),
    workspaceLost: z.literal(true).optional().meta({
      description:
        "the session's host was lost and the session was re-homed: earlier workspace files and processes are gone",
    }),
    createdAt: z.string(),
    lastUsedAt: z.string(),
  })
  .meta({ id: "Session" });
export type SessionView = z.infer<typeof SessionView>;
