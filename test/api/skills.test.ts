/**
 * Skills through the API: JSON and `.tar.gz` uploads stored in the database (the API writes no
 * file; a worker's skill cache unpacks them), 400 with paths, 413 for size, list, delete (409 while a group uses it), roles and cross-tenant 404;
 * the listing's `Skill` tool and system-prompt fragment; hostile uploads (file names, front-matter bombs).
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { skills } from "../../src/db/schema.js";
import { ADMIN_KEY, createApiTestApp, seedTenant } from "../support/harness.js";
import { NullSandboxProvider } from "../support/null-sandbox.js";
import { makeTarGz } from "../toolkit/skills/make-tar.js";

let t: Awaited<ReturnType<typeof createApiTestApp>>;
let a: Awaited<ReturnType<typeof seedTenant>>;
beforeEach(async () => {
  t = await createApiTestApp(new NullSandboxProvider());
  a = await seedTenant(t.call);
});
afterEach(() => t.close());

const SKILL_MD =
  "---\nname: greet\ndescription: Greets people.\n---\n\n# Greet\n\nRun `bash /skills/greet/run.sh`.\n";
const upload = (files: Record<string, unknown>, key = a.adminKey, tid = a.tenantId) =>
  t.call("POST", `/v1/tenants/${tid}/skills`, { key, body: { files } });
const uploadRaw = (body: Buffer, type: string) =>
  t.app.request(`/v1/tenants/${a.tenantId}/skills`, {
    method: "POST",
    headers: { authorization: `Bearer ${a.adminKey}`, "content-type": type },
    body,
  });

describe("POST /v1/tenants/{tid}/skills", () => {
  it("stores a JSON upload in the database, writes no file, and lists it; the skill cache unpacks it", async () => {
    const res = await upload({ "SKILL.md": SKILL_MD, "run.sh": "echo hi\n" });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toEqual({ name: "greet", description: "Greets people." });
    expect(existsSync(t.deps.skillFiles.root)).toBe(false);
    const dir = join(await t.deps.skillFiles.tenantDir(a.tenantId), "greet");
    expect(readFileSync(join(dir, "run.sh"), "utf8")).toBe("echo hi\n");
    expect(statSync(join(dir, "SKILL.md")).mode & 0o777).toBe(0o644);
    const list = await t.call("GET", `/v1/tenants/${a.tenantId}/skills`, { key: a.adminKey });
    expect(list.body.skills).toEqual([
      {
        name: "greet",
        description: "Greets people.",
        fileCount: 2,
        sizeBytes: expect.any(Number),
        createdAt: expect.any(String),
      },
    ]);
  });

  it("takes a .tar.gz body (wrapper directory stripped, executable bit kept) and replaces by name", async () => {
    await upload({ "SKILL.md": SKILL_MD, "old.txt": "x" });
    const tar = makeTarGz([
      { path: "greet/", type: "5", mode: 0o755 },
      { path: "greet/SKILL.md", content: SKILL_MD },
      { path: "greet/run.sh", content: "echo hi\n", mode: 0o755 },
    ]);
    const res = await uploadRaw(tar, "application/gzip");
    expect(res.status, await res.clone().text()).toBe(201);
    const dir = join(await t.deps.skillFiles.tenantDir(a.tenantId), "greet");
    expect(statSync(join(dir, "run.sh")).mode & 0o777).toBe(0o755);
    expect(() => statSync(join(dir, "old.txt"))).toThrow();
    const list = await t.call("GET", `/v1/tenants/${a.tenantId}/skills`, { key: a.adminKey });
    expect(list.body.skills.map((s: { fileCount: number }) => s.fileCount)).toEqual([2]);
  });

  it("400 lists every problem with its path", async () => {
    const res = await upload({ "SKILL.md": "---\nname: Bad Name\n---\n", "../x": "y", "a.txt": 3 });
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    const paths = res.body.error.details.map((d: { path: string }) => d.path);
    expect(paths).toEqual(expect.arrayContaining(["SKILL.md", "../x", "a.txt"]));
    const garbage = await uploadRaw(Buffer.from("not gzip"), "application/gzip");
    expect(garbage.status).toBe(400);
    const text = await uploadRaw(Buffer.from("x"), "text/plain");
    expect(text.status).toBe(415);
    const problem = (await text.json()) as { error: { code: string; details: { path: string }[] } };
    expect(problem.error.code).toBe("UNSUPPORTED_MEDIA_TYPE");
    expect(problem.error.details[0]?.path).toBe("content-type");
  });

  it("413 when the skill is too big", async () => {
    const big = "x".repeat(1024 * 1024 + 1);
    const tar = makeTarGz([
      { path: "SKILL.md", content: SKILL_MD },
      { path: "big.txt", content: big },
    ]);
    const res = await uploadRaw(tar, "application/gzip");
    expect(res.status).toBe(413);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("PAYLOAD_TOO_LARGE");
  });

  it("agents may not upload (403); another tenant's answer 404", async () => {
    expect((await upload({ "SKILL.md": SKILL_MD }, a.agentKey)).status).toBe(403);
    const b = await seedTenant(t.call, "b");
    expect((await upload({ "SKILL.md": SKILL_MD }, b.adminKey)).status).toBe(404);
    expect((await upload({ "SKILL.md": SKILL_MD }, ADMIN_KEY)).status).toBe(201);
  });
});

it("the OpenAPI document describes the skill and tool-group routes", async () => {
  const doc = await t.call("GET", "/openapi.json");
  expect(doc.status).toBe(200);
  expect(Object.keys(doc.body.paths)).toEqual(
    expect.arrayContaining([
      "/v1/tenants/{tid}/skills",
      "/v1/tenants/{tid}/skills/{name}",
      "/v1/tenants/{tid}/tool-groups",
    ]),
  );
  expect(Object.keys(doc.body.paths["/v1/tenants/{tid}/skills"].post.requestBody.content)).toContain(
    "application/gzip",
  );
});

describe("DELETE /v1/tenants/{tid}/skills/{name}", () => {
  it("removes the skill, 404 when missing, 409 while a group uses it", async () => {
    await upload({ "SKILL.md": SKILL_MD });
    expect(existsSync(join(await t.deps.skillFiles.tenantDir(a.tenantId), "greet", "SKILL.md"))).toBe(true);
    const group = { name: "greeting", description: "Greets.", tools: [], skills: ["greet"] };
    const put = await t.call("PUT", `/v1/tenants/${a.tenantId}/tool-groups`, {
      key: a.adminKey,
      body: [group],
    });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    const used = await t.call("DELETE", `/v1/tenants/${a.tenantId}/skills/greet`, { key: a.adminKey });
    expect(used.status, JSON.stringify(used.body)).toBe(409);
    await t.call("PUT", `/v1/tenants/${a.tenantId}/tool-groups`, { key: a.adminKey, body: [] });
    const del = await t.call("DELETE", `/v1/tenants/${a.tenantId}/skills/greet`, { key: a.adminKey });
    expect(del.status).toBe(204);
    expect(existsSync(join(await t.deps.skillFiles.tenantDir(a.tenantId), "greet"))).toBe(false);
    const again = await t.call("DELETE", `/v1/tenants/${a.tenantId}/skills/greet`, { key: a.adminKey });
    expect(again.status).toBe(404);
  });
});

describe("skills in a session's listing", () => {
  it("shows the Skill tool and the prompt fragment; a group's skill only while it is active", async () => {
    await upload({ "SKILL.md": SKILL_MD });
    const s = await t.call("POST", "/v1/sessions", { key: a.agentKey, body: {} });
    const list = await t.call("GET", `/v1/sessions/${s.body.id}/tools`, { key: a.agentKey });
    expect(list.body.tools[0].name).toBe("Skill");
    expect(list.body.systemPrompt).toContain(
      "<skill>\n<name>greet</name>\n<description>Greets people.</description>\n<dir>/skills/greet</dir>\n</skill>",
    );
    const group = { name: "greeting", description: "Greets.", tools: [], skills: ["greet"] };
    await t.call("PUT", `/v1/tenants/${a.tenantId}/tool-groups`, { key: a.adminKey, body: [group] });
    const inactive = await t.call("GET", `/v1/sessions/${s.body.id}/tools`, { key: a.agentKey });
    expect(inactive.body.tools[0].name).toBe("reset_tools");
    expect(inactive.body.systemPrompt).toBe("");
    const none = await t.call("POST", "/v1/sessions", { key: a.agentKey, body: { skills: [] } });
    expect(none.status).toBe(201);
  });
});

describe("a skill stored before files moved into the database", () => {
  it("is listed, stays out of sessions without breaking them, and can be re-uploaded or deleted", async () => {
    // What an old DATA_DIR holds: the row, and files under DATA_DIR/skills that nothing reads now.
    t.deps.db
      .insert(skills)
      .values({
        tenantId: a.tenantId,
        name: "greet",
        description: "Greets people.",
        markdown: "# Greet",
        fileCount: 1,
        sizeBytes: 7,
        createdAt: "2026-01-01T00:00:00.000Z",
      })
      .run();
    const list = await t.call("GET", `/v1/tenants/${a.tenantId}/skills`, { key: a.adminKey });
    expect(list.body.skills.map((s: { name: string }) => s.name)).toEqual(["greet"]);
    const s = await t.call("POST", "/v1/sessions", { key: a.agentKey, body: {} });
    expect(s.status, JSON.stringify(s.body)).toBe(201);
    const tools = await t.call("GET", `/v1/sessions/${s.body.id}/tools`, { key: a.agentKey });
    expect(tools.status, JSON.stringify(tools.body)).toBe(200);
    expect(tools.body.tools.map((x: { name: string }) => x.name)).not.toContain("Skill");
    expect(await t.deps.skillFiles.tenantDir(a.tenantId)).toBe(join(t.deps.skillFiles.root, a.tenantId));

    expect((await upload({ "SKILL.md": SKILL_MD })).status).toBe(201);
    const after = await t.call("GET", `/v1/sessions/${s.body.id}/tools`, { key: a.agentKey });
    expect(after.body.tools[0].name).toBe("Skill");
    const del = await t.call("DELETE", `/v1/tenants/${a.tenantId}/skills/greet`, { key: a.adminKey });
    expect(del.status).toBe(204);
  });
});

// A hostile tenant admin's uploads (attack23a): what is accepted must unpack on every worker (a
// name the file system refuses broke the tenant's sessions there), and front-matter bombs are a
// 400, not a stall of the API's thread.
const HOSTILE_MD = "---\nname: hostile\ndescription: Tries things.\n---\n\nBody.\n";

describe("skill file names", () => {
  it("a name of 255 bytes is stored and unpacks", async () => {
    const name = `${"é".repeat(127)}x`; // 255 bytes in UTF-8
    const res = await upload({ "SKILL.md": HOSTILE_MD, [`dir/${name}`]: "x" });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const dir = await t.deps.skillFiles.tenantDir(a.tenantId);
    expect(readdirSync(join(dir, "hostile", "dir"))).toEqual([name]);
  });

  it("a segment over 255 bytes (short in characters) is a 400 naming it", async () => {
    const name = "é".repeat(128); // 128 characters, 256 bytes
    const res = await upload({ "SKILL.md": HOSTILE_MD, [`dir/${name}`]: "x" });
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

describe("the number of skills a tenant keeps", () => {
  it("a new skill past 200 is a 409 saying what to do; replacing one at the bound still works", async () => {
    const md = (n: number) => `---\nname: s${n}\ndescription: Skill ${n}.\n---\nBody\n`;
    for (let n = 0; n < 200; n++) {
      const res = await upload({ "SKILL.md": md(n) });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
    }
    const over = await upload({ "SKILL.md": md(200) });
    expect(over.status, JSON.stringify(over.body)).toBe(409);
    expect(over.body.error).toMatchObject({
      code: "CONFLICT",
      message: expect.stringContaining("delete one"),
    });
    const again = await upload({ "SKILL.md": md(7), "extra.txt": "x" });
    expect(again.status, JSON.stringify(again.body)).toBe(201);
  }, 60_000);
});

describe("the skill count under racing uploads (attack24a)", () => {
  it("two new skills uploaded at once at 199 leave at most 200, and the one refused is a 409", async () => {
    // 199 skills as uploads would leave them (the rows the count reads).
    t.deps.db
      .insert(skills)
      .values(
        Array.from({ length: 199 }, (_, n) => ({
          tenantId: a.tenantId,
          name: `s${n}`,
          description: `Skill ${n}.`,
          markdown: "Body\n",
          fileCount: 1,
          sizeBytes: 10,
          createdAt: "2026-01-01T00:00:00.000Z",
        })),
      )
      .run();
    const md = (name: string) => `---\nname: ${name}\ndescription: Racer ${name}.\n---\nBody\n`;
    const results = await Promise.all([
      upload({ "SKILL.md": md("racer-a") }),
      upload({ "SKILL.md": md("racer-b") }),
    ]);
    const statuses = results.map((r) => r.status).sort();
    const list = await t.call("GET", `/v1/tenants/${a.tenantId}/skills`, { key: a.adminKey });
    expect(list.body.skills.length, JSON.stringify(statuses)).toBeLessThanOrEqual(200);
    // Each upload is either kept (201, listed) or refused with the bound's 409.
    for (const r of results) expect([201, 409], JSON.stringify(r.body)).toContain(r.status);
    const racers = list.body.skills.filter((s: { name: string }) => s.name.startsWith("racer-"));
    expect(racers.length).toBe(statuses.filter((s) => s === 201).length);
  });
});
