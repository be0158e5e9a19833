/**
 * Every acquire of a session's sandbox goes through here, so the container is always created
 * with the tenant's skills directory mounted read-only at `/skills` (whoever starts it first).
 * The whole directory is mounted, not each skill: skills added later appear without recreation.
 */
import type { Db } from "../../db/open.js";
import type { SessionRow } from "../../db/schema.js";
import type { Sandbox, SandboxProvider } from "../../sandbox/sandbox.js";
import { SKILLS_MOUNT_ROOT } from "../../toolkit/skills/skill.js";
import type { SecretBox } from "../secret-box.js";
import { sessionSandboxSettings } from "../tenancy/sandbox-settings.js";
import { readSandboxSettings } from "../tenancy/tenant-settings.js";
import type { SkillFiles } from "../tool-config/skill-files.js";

/** What acquiring a session's sandbox needs (a narrow port, not the whole dependency bag). */
export interface SessionSandboxDeps {
  db: Db;
  sandboxes: SandboxProvider;
  skillFiles: SkillFiles;
  secrets: SecretBox;
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
    // The tenant's image, limits and environment, read now: a new container gets the current ones.
    settings: sessionSandboxSettings(
      deps.secrets,
      session.tenantId,
      await readSandboxSettings(deps.db, session.tenantId),
    ),
  });
}
