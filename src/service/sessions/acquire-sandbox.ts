/**
 * Every acquire of a session's sandbox goes through here, so the container is always created
 * with the tenant's skills directory mounted read-only at `/skills` (whoever starts it first).
 * The whole directory is mounted, not each skill: skills added later appear without recreation.
 */
import type { SessionRow } from "../../db/schema.js";
import type { Sandbox, SandboxProvider } from "../../sandbox/sandbox.js";
import { SKILLS_MOUNT_ROOT } from "../../toolkit/skills/skill.js";
import type { SkillFiles } from "../tool-config/skill-files.js";

/** What acquiring a session's sandbox needs (a narrow port, not the whole dependency bag). */
export interface SessionSandboxDeps {
  sandboxes: SandboxProvider;
  skillFiles: SkillFiles;
}

export async function acquireSessionSandbox(
  deps: SessionSandboxDeps,
  session: Pick<SessionRow, "id" | "tenantId">,
): Promise<Sandbox> {
  const hostPath = await deps.skillFiles.tenantDir(session.tenantId);
  return deps.sandboxes.acquire({
    sessionId: session.id,
    tenantId: session.tenantId,
    readOnlyMounts: [{ hostPath, containerPath: SKILLS_MOUNT_ROOT }],
  });
}
