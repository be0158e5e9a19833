/**
 * Every acquire of a session's sandbox goes through here, so the container is always created
 * with the tenant's skills directory mounted read-only at `/skills` (whoever starts it first).
 * The whole directory is mounted, not each skill: skills added later appear without recreation.
 */
import type { SessionRow } from "../db/schema.js";
import type { Sandbox } from "../sandbox/sandbox.js";
import { SKILLS_MOUNT_ROOT } from "../toolkit/skills/skill.js";
import type { ServiceDeps } from "./deps.js";

export async function acquireSessionSandbox(
  deps: Pick<ServiceDeps, "sandboxes" | "skillFiles">,
  session: Pick<SessionRow, "id" | "tenantId">,
): Promise<Sandbox> {
  const hostPath = await deps.skillFiles.tenantDir(session.tenantId);
  return deps.sandboxes.acquire({
    sessionId: session.id,
    tenantId: session.tenantId,
    readOnlyMounts: [{ hostPath, containerPath: SKILLS_MOUNT_ROOT }],
  });
}
