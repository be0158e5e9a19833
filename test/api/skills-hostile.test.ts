/**
 * A hostile tenant admin's skill uploads (attack23a): what is accepted must unpack on every
 * worker (a name the file system refuses broke the tenant's sessions there), and front-matter
 * bombs are a 400, not a stall.
 */

import { readdirSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createApiTestApp, seedTenant } from "../support/harness.js";
import { NullSandboxProvider } from "../support/null-sandbox.js";

let t: Awaited<ReturnType<typeof createApiTestApp>>;
let a: Awaited<ReturnType<typeof seedTenant>>;
beforeEach(async () => {
  t = await createApiTestApp(new NullSandboxProvider());
  a = await seedTenant(t.call);
});
afterEach(() => t.close());

const SKILL_MD = "---\nname: hostile\ndescription: Tries things.\n---\n\nBody.\n";
const upload = (files: Record<string, unknown>) =>
  t.call("POST", `/v1/tenants/${a.tenantId}/skills`, { key: a.adminKey, body: { files } });

describe("skill file names", () => {
  it("a name of 255 bytes is stored and unpacks", async () => {
    const name = `${"é".repeat(127)}x`; // 255 bytes in UTF-8
    const res = await upload({ "SKILL.md": SKILL_MD, [`dir/${name}`]: "x" });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const dir = await t.deps.skillFiles.tenantDir(a.tenantId);
    expect(readdirSync(join(dir, "hostile", "dir"))).toEqual([name]);
  });

  it("a segment over 255 bytes (short in characters) is a 400 naming it", async () => {
    const name = "é".repeat(128); // 128 characters, 256 bytes
    const res = await upload({ "SKILL.md": SKILL_MD, [`dir/${name}`]: "x" });
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.error.details).toEqual([
      { path: `dir/${name}`, message: expect.stringContaining("255 bytes") },
    ]);
    // Nothing stored, so nothing for a worker to fail on.
    expect(await t.deps.skillFiles.tenantDir(a.tenantId)).toBeTruthy();
  });
});

describe("SKILL.md front matter bombs", () => {
  it("aliases that expand exponentially (billion laughs): a 400", async () => {
    const lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
    for (let i = 1; i < 12; i++) {
      const prev = String.fromCharCode(96 + i);
      const cur = String.fromCharCode(97 + i);
      lines.push(`${cur}: &${cur} [${Array(9).fill(`*${prev}`).join(",")}]`);
    }
    const md = `---\nname: hostile\ndescription: x\n${lines.join("\n")}\n---\nBody\n`;
    const res = await upload({ "SKILL.md": md });
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.error.details[0]).toMatchObject({ path: "SKILL.md" });
  });

  it("deep nesting: a 400, not a crash", async () => {
    const depth = 30_000;
    const md = `---\nname: hostile\ndescription: x\nz: ${"[".repeat(depth)}${"]".repeat(depth)}\n---\nBody\n`;
    const res = await upload({ "SKILL.md": md });
    expect([201, 400], JSON.stringify(res.body).slice(0, 300)).toContain(res.status);
  });
});

describe("SKILL.md front matter size", () => {
  it("a front matter over 16 KiB is a 400 saying so (parsing many keys is quadratic)", async () => {
    const keys = Array.from({ length: 2000 }, (_, i) => `k${i}: [1,1,1]`).join("\n");
    const md = `---\nname: hostile\ndescription: x\n${keys}\n---\nBody\n`;
    const res = await upload({ "SKILL.md": md });
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.error.details).toEqual([
      { path: "SKILL.md", message: expect.stringContaining("(at most 16384): keep it to name, description") },
    ]);
  });

  it("a front matter just under the bound is read", async () => {
    const md = `---\nname: hostile\ndescription: x\nnotes: ${"n".repeat(16_000)}\n---\nBody\n`;
    const res = await upload({ "SKILL.md": md });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
  });
});
