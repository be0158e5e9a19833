/**
 * Skills in the database and a worker's host cache of them, run on each dialect
 * (skill-cache.test.ts, skill-cache.pg.int.test.ts): the archive row is what every host reads,
 * the cache unpacks it content-addressed and swaps versions whole.
 */
import { lstatSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { and, eq } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type Db, tablesOf } from "../../../src/db/db.js";
import { ConflictError } from "../../../src/errors.js";
import { toolRegistry } from "../../../src/service/ports.js";
import type { Principal } from "../../../src/service/tenancy/principal.js";
import { packSkill } from "../../../src/service/tool-config/skill-archive.js";
import { SkillFiles } from "../../../src/service/tool-config/skill-files.js";
import { MAX_SKILLS_PER_TENANT, uploadSkill } from "../../../src/service/tool-config/skills.js";
import { getSkillRecords, TenantSkillLoader } from "../../../src/service/tool-config/tenant-skill-loader.js";
import { createBuiltinTools } from "../../../src/toolkit/builtins.js";

export interface SkillDbFixture {
  db: Db;
  close(): Promise<void>;
}

let n = 0;
const md = (name: string, body: string) =>
  `---\nname: ${name}\ndescription: The ${name} skill.\n---\n\n${body}\n`;

export function skillCacheContract(dialect: string, open: () => Promise<SkillDbFixture>): void {
  describe(`skills in the database and the host cache (${dialect})`, () => {
    let fx: SkillDbFixture;
    let tenantId: string;
    let roots: string[];
    const cache = () => {
      const root = mkdtempSync(join(tmpdir(), "tsk-"));
      roots.push(root);
      return new SkillFiles(root, fx.db);
    };
    const store = async (name: string, files: Record<string, string>, opts: { exec?: string[] } = {}) => {
      const { skills, skillArchives } = tablesOf(fx.db);
      const list = Object.entries(files).map(([path, content]) => ({
        path,
        content: Buffer.from(content),
        executable: opts.exec?.includes(path) ?? false,
      }));
      const { archive, sha256 } = packSkill(list);
      const row = {
        tenantId,
        name,
        description: `The ${name} skill.`,
        markdown: "",
        fileCount: list.length,
        sizeBytes: 1,
        createdAt: new Date().toISOString(),
      };
      const { tenantId: _t, name: _n, ...set } = row;
      await fx.db
        .insert(skills)
        .values(row)
        .onConflictDoUpdate({ target: [skills.tenantId, skills.name], set });
      await fx.db
        .insert(skillArchives)
        .values({ tenantId, name, sha256, archive })
        .onConflictDoUpdate({
          target: [skillArchives.tenantId, skillArchives.name],
          set: { sha256, archive },
        });
      return sha256;
    };

    beforeEach(async () => {
      fx = await open();
      roots = [];
      tenantId = `ten_${process.pid}_${n++}`;
      await fx.db
        .insert(tablesOf(fx.db).tenants)
        .values({ id: tenantId, name: "t", createdAt: "2026-01-01" });
    });
    afterEach(async () => {
      for (const r of roots) rmSync(r, { recursive: true, force: true });
      await fx.close();
    });

    it("lists only skills with stored files; the viewer reads SKILL.md from the archive", async () => {
      await store("greet", { "SKILL.md": md("greet", "# Greet") });
      // A row from before files moved into the database: no archive, left out, nothing breaks.
      await fx.db.insert(tablesOf(fx.db).skills).values({
        tenantId,
        name: "legacy",
        description: "Old.",
        markdown: "",
        fileCount: 1,
        sizeBytes: 1,
        createdAt: "2026-01-01",
      });
      const records = await getSkillRecords(fx.db, tenantId);
      expect(records).toEqual([{ name: "greet", description: "The greet skill.", dir: "/skills/greet" }]);
      const loader = new TenantSkillLoader({ db: fx.db }, tenantId);
      const [greet] = await loader.load();
      expect(await loader.readSkillMd(greet!)).toBe(md("greet", "# Greet"));
      await expect(loader.readSkillMd({ ...greet!, name: "legacy" })).rejects.toThrow(
        "The skill 'legacy' could not be read; it may have just been removed.",
      );
      const dir = await cache().tenantDir(tenantId);
      expect(readdirSync(dir).sort()).toEqual([".v", "greet"]);
    });

    it("unpacks content-addressed with modes; a re-store swaps the link whole; a delete removes it", async () => {
      const v1 = await store(
        "greet",
        { "SKILL.md": md("greet", "v1"), "bin/run.sh": "echo 1\n" },
        { exec: ["bin/run.sh"] },
      );
      const files = cache();
      const dir = await files.tenantDir(tenantId);
      expect(dir).toBe(join(files.root, tenantId));
      expect(lstatSync(join(dir, "greet")).isSymbolicLink()).toBe(true);
      expect(readlinkSync(join(dir, "greet"))).toBe(`.v/${v1}`);
      expect(readFileSync(join(dir, "greet", "bin/run.sh"), "utf8")).toBe("echo 1\n");
      expect(statSync(join(dir, "greet", "bin/run.sh")).mode & 0o777).toBe(0o755);
      expect(statSync(join(dir, "greet", "SKILL.md")).mode & 0o777).toBe(0o644);
      expect(statSync(join(dir, ".v", v1)).mode & 0o777).toBe(0o755);

      const v2 = await store("greet", { "SKILL.md": md("greet", "v2") });
      // Within the TTL this process does not read the database again, unless told to.
      await files.tenantDir(tenantId);
      expect(readlinkSync(join(dir, "greet"))).toBe(`.v/${v1}`);
      files.invalidate(tenantId);
      await files.tenantDir(tenantId);
      expect(readlinkSync(join(dir, "greet"))).toBe(`.v/${v2}`);
      expect(() => statSync(join(dir, "greet", "bin/run.sh"))).toThrow();
      // The old version stays a while for containers still reading it.
      expect(readdirSync(join(dir, ".v")).sort()).toEqual([v1, v2].sort());
      expect(readdirSync(join(files.root, ".tmp"))).toEqual([]);

      const { skills, skillArchives } = tablesOf(fx.db);
      await fx.db
        .delete(skillArchives)
        .where(and(eq(skillArchives.tenantId, tenantId), eq(skillArchives.name, "greet")));
      await fx.db.delete(skills).where(and(eq(skills.tenantId, tenantId), eq(skills.name, "greet")));
      files.invalidate(tenantId);
      await files.tenantDir(tenantId);
      expect(readdirSync(dir)).toEqual([".v"]);
    });

    it("two caches on one host race to one version; another host's cache gets the same bytes", async () => {
      const sha = await store("greet", { "SKILL.md": md("greet", "race") });
      const root = mkdtempSync(join(tmpdir(), "tsk-"));
      roots.push(root);
      const [a, b] = [new SkillFiles(root, fx.db), new SkillFiles(root, fx.db)];
      const dirs = await Promise.all([a.tenantDir(tenantId), b.tenantDir(tenantId), a.tenantDir(tenantId)]);
      expect(new Set(dirs).size).toBe(1);
      expect(readdirSync(join(root, tenantId, ".v"))).toEqual([sha]);
      expect(readdirSync(join(root, ".tmp"))).toEqual([]);
      const other = await cache().tenantDir(tenantId);
      expect(readFileSync(join(other, "greet", "SKILL.md"), "utf8")).toBe(md("greet", "race"));
    });

    it("refuses an archive that does not match its hash, writes nothing, and tries again next time", async () => {
      await store("greet", { "SKILL.md": md("greet", "ok") });
      const { skillArchives } = tablesOf(fx.db);
      const bad = packSkill([{ path: "SKILL.md", content: Buffer.from("tampered"), executable: false }]);
      await fx.db
        .update(skillArchives)
        .set({ archive: bad.archive })
        .where(eq(skillArchives.tenantId, tenantId));
      const files = cache();
      await expect(files.tenantDir(tenantId)).rejects.toThrow(/does not match its hash/);
      expect(readdirSync(join(files.root, tenantId, ".v"))).toEqual([]);
      const good = await store("greet", { "SKILL.md": md("greet", "fixed") });
      // The failure is not remembered for the TTL.
      const dir = await files.tenantDir(tenantId);
      expect(readlinkSync(join(dir, "greet"))).toBe(`.v/${good}`);
    });

    it("two new skills uploaded at once at the bound: at most the bound kept, no archive left without its row", async () => {
      const { skills, skillArchives } = tablesOf(fx.db);
      const rows = Array.from({ length: MAX_SKILLS_PER_TENANT - 1 }, (_, i) => ({
        tenantId,
        name: `s${i}`,
        description: "x",
        markdown: "",
        fileCount: 1,
        sizeBytes: 1,
        createdAt: "2026-01-01",
      }));
      await fx.db.insert(skills).values(rows);
      const deps = { db: fx.db, tools: toolRegistry(createBuiltinTools()), skillFiles: cache() };
      const p: Principal = { keyId: "key_t", role: "tenant_admin", tenantId };
      const results = await Promise.allSettled(
        ["racer-a", "racer-b"].map((name) => uploadSkill(deps, p, tenantId, { "SKILL.md": md(name, "b") })),
      );
      for (const r of results)
        if (r.status === "rejected")
          expect(r.reason, JSON.stringify(r.reason.details)).toBeInstanceOf(ConflictError);
      const kept = await fx.db
        .select({ name: skills.name })
        .from(skills)
        .where(eq(skills.tenantId, tenantId));
      expect(kept.length).toBeLessThanOrEqual(MAX_SKILLS_PER_TENANT);
      const archives = await fx.db
        .select({ name: skillArchives.name })
        .from(skillArchives)
        .where(eq(skillArchives.tenantId, tenantId));
      const names = new Set(kept.map((k) => k.name));
      expect(archives.filter((a) => !names.has(a.name))).toEqual([]);
      expect(archives.length).toBe(results.filter((r) => r.status === "fulfilled").length);
    });
  });
}
