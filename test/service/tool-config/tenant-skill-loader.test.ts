/**
 * A tenant's stored skills as a skill loader on real SQLite: the service's session toolkit and a
 * library host's `Toolkit.create` take the same path from the store to the `Skill` viewer, which
 * reads SKILL.md from the skill's archive in the database without a sandbox.
 */
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { sessions, skillArchives } from "../../../src/db/schema.js";
import { sessionToolkit } from "../../../src/service/sessions/build-toolkit.js";
import { TenantSkillLoader } from "../../../src/service/tool-config/tenant-skill-loader.js";
import { createHostContext } from "../../../src/toolkit/host-context.js";
import { LocalSkillLoader } from "../../../src/toolkit/skills/local-skill-loader.js";
import { Toolkit } from "../../../src/toolkit/toolkit.js";
import { createApiTestApp, seedTenant } from "../../support/harness.js";
import { NullSandboxProvider } from "../../support/null-sandbox.js";
import { cleanup, skillFolder, skillMd, textOf } from "../../toolkit/skills/skill-folders.js";

let t: Awaited<ReturnType<typeof createApiTestApp>>;
let a: Awaited<ReturnType<typeof seedTenant>>;
beforeEach(async () => {
  t = await createApiTestApp(new NullSandboxProvider());
  a = await seedTenant(t.call);
  for (const [name, body] of [
    ["greet", "# Greet\n\nSay hello."],
    ["count", "# Count"],
  ]) {
    const files = { "SKILL.md": skillMd(name!, `The ${name} skill.`, body) };
    const res = await t.call("POST", `/v1/tenants/${a.tenantId}/skills`, {
      key: a.adminKey,
      body: { files },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
  }
});
afterEach(() => t.close());
afterAll(cleanup);

describe("TenantSkillLoader", () => {
  it("loads the tenant's rows by name, each with the mount dir and the loader as its source", async () => {
    const loader = new TenantSkillLoader(t.deps, a.tenantId);
    const loaded = await loader.load();
    expect(loaded.map(({ name, description, dir }) => ({ name, description, dir }))).toEqual([
      { name: "count", description: "The count skill.", dir: "/skills/count" },
      { name: "greet", description: "The greet skill.", dir: "/skills/greet" },
    ]);
    expect(loaded.every((s) => s.source === loader)).toBe(true);
    expect(await loader.readSkillMd(loaded[1]!)).toBe(
      skillMd("greet", "The greet skill.", "# Greet\n\nSay hello."),
    );
    const other = await seedTenant(t.call, "other");
    expect(await new TenantSkillLoader(t.deps, other.tenantId).load()).toEqual([]);
  });

  it("is a loader like any other for Toolkit.create, next to a folder on disk", async () => {
    const folder = skillFolder({ "pdf/SKILL.md": skillMd("pdf", "PDFs.", "# PDF") });
    const kit = await Toolkit.create({
      skills: [
        new TenantSkillLoader(t.deps, a.tenantId),
        new LocalSkillLoader({ directory: folder, scanSubdir: true }),
      ],
    });
    expect([...kit.visibleSkills().keys()]).toEqual(["count", "greet", "pdf"]);
    const ctx = createHostContext();
    expect(textOf(await kit.callTool("Skill", { skill: "greet" }, ctx))).toBe("# Greet\n\nSay hello.");
    expect(textOf(await kit.callTool("Skill", { skill: "pdf" }, ctx))).toBe("# PDF");

    const clash = skillFolder({ "SKILL.md": skillMd("greet", "Another greet.") });
    await expect(
      Toolkit.create({ skills: [new TenantSkillLoader(t.deps, a.tenantId), clash] }),
    ).rejects.toThrow(
      `Duplicate skill name 'greet': registered in group 'basic' (uploaded skills of tenant ${a.tenantId}) and again in group 'basic' (${clash}/SKILL.md).`,
    );
  });

  it("feeds the session toolkit: the viewer reads the database without a sandbox, and says so when the files vanish", async () => {
    const s = await t.call("POST", "/v1/sessions", { key: a.agentKey, body: {} });
    expect(s.status, JSON.stringify(s.body)).toBe(201);
    const row = t.deps.db.select().from(sessions).all()[0]!;
    const { toolkit } = await sessionToolkit(t.deps, row);
    expect(toolkit.visibleSkills().get("greet")?.source).toBeInstanceOf(TenantSkillLoader);
    const ctx = createHostContext();
    expect(textOf(await toolkit.callTool("Skill", { skill: "greet" }, ctx))).toBe("# Greet\n\nSay hello.");

    t.deps.db.delete(skillArchives).run();
    const gone = await toolkit.callTool("Skill", { skill: "greet" }, ctx);
    expect([gone.state, textOf(gone)]).toEqual([
      "error",
      "The skill 'greet' could not be read; it may have just been removed.",
    ]);
  });
});
