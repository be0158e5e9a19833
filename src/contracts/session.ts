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
    workingDirectories: z.array(z.string()),
    // A deleted session is never served (404); only the session list shows `deleted` ones.
    status: z.enum(["active", "deleted"]),
    rules: RuleStrings,
    tools: z.array(z.string()).meta({ description: "the tools this session offers" }),
    createdAt: z.string(),
    lastUsedAt: z.string(),
  })
  .meta({ id: "Session" });
export type SessionView = z.infer<typeof SessionView>;
