/**
 * Per-tenant sandbox settings through the API: the image allowlist, limits within the platform's
 * caps (400 naming the field), environment variables stored sealed and returned by name only.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { tenantSettings } from "../../src/db/schema.js";
import { ADMIN_KEY, createApiTestApp, seedTenant } from "../support/harness.js";
import { NullSandboxProvider } from "../support/null-sandbox.js";

let t: Awaited<ReturnType<typeof createApiTestApp>>;
let a: Awaited<ReturnType<typeof seedTenant>>;

beforeEach(async () => {
  t = await createApiTestApp(new NullSandboxProvider());
  a = await seedTenant(t.call, "a");
});
afterEach(() => t.close());

const put = (sandbox: object, key = a.adminKey, tid = a.tenantId) =>
  t.call("PUT", `/v1/tenants/${tid}/settings`, { key, body: { sandbox } });

describe("tenant sandbox settings", () => {
  it("defaults to the platform's (nulls, no variables)", async () => {
    const res = await t.call("GET", `/v1/tenants/${a.tenantId}/settings`, { key: a.adminKey });
    expect(res.body.sandbox).toEqual({
      image: null,
      memoryMb: null,
      cpus: null,
      pids: null,
      diskMb: null,
      env: [],
    });
  });

  it.each([
    [{ image: "evil/miner:latest" }, "sandbox.image"],
    [{ memoryMb: 4096 }, "sandbox.memoryMb"],
    [{ cpus: 3 }, "sandbox.cpus"],
    [{ pids: 513 }, "sandbox.pids"],
    [{ diskMb: 4096 }, "sandbox.diskMb"],
    [{ memoryMb: 1 }, "sandbox.memoryMb"],
    [{ env: { PATH: "/evil" } }, "sandbox.env.PATH"],
    [{ env: { "1BAD": "x" } }, "sandbox.env.1BAD"],
    [{ env: { GIT_DIR: "/x" } }, "sandbox.env.GIT_DIR"],
    // attack23a: loader and shell start-up variables would run a workspace file in every
    // command, the reader identity's included (the tenant's variables reach each command).
    [{ env: { LD_AUDIT: "/workspace/a.so" } }, "sandbox.env.LD_AUDIT"],
    [{ env: { LD_DEBUG_OUTPUT: "/workspace/x" } }, "sandbox.env.LD_DEBUG_OUTPUT"],
    [{ env: { BASH_ENV: "/workspace/rc" } }, "sandbox.env.BASH_ENV"],
    [{ env: { ENV: "/workspace/rc" } }, "sandbox.env.ENV"],
    [{ env: { NODE_OPTIONS: "--require /workspace/x.js" } }, "sandbox.env.NODE_OPTIONS"],
    // attack25b: files that auto-allowed read-only programs read as options or code: ripgrep's
    // option file (`--pre`), iconv modules, locale, catalogue and zone files.
    [{ env: { RIPGREP_CONFIG_PATH: "/workspace/rgrc" } }, "sandbox.env.RIPGREP_CONFIG_PATH"],
    [{ env: { GCONV_PATH: "/workspace/g" } }, "sandbox.env.GCONV_PATH"],
    [{ env: { LOCPATH: "/workspace/l" } }, "sandbox.env.LOCPATH"],
    [{ env: { NLSPATH: "/workspace/%N" } }, "sandbox.env.NLSPATH"],
    [{ env: { TZDIR: "/workspace/z" } }, "sandbox.env.TZDIR"],
    [{ env: { LANGUAGE: "../../../workspace/l" } }, "sandbox.env.LANGUAGE"],
    [{ env: { LC_MESSAGES: "/workspace/l" } }, "sandbox.env.LC_MESSAGES"],
    [{ env: { TZ: "/workspace/z" } }, "sandbox.env.TZ"],
    [{ env: { TZ: ":../../workspace/z" } }, "sandbox.env.TZ"],
    // Guards: other spellings of an image and of a limit.
    [{ image: "docker.io/library/toolshed-sandbox:alt" }, "sandbox.image"],
    [
      {
        image: "toolshed-sandbox:alt@sha256:0000000000000000000000000000000000000000000000000000000000000000",
      },
      "sandbox.image",
    ],
    [{ image: "toolshed-sandbox:ALT" }, "sandbox.image"],
    [{ memoryMb: -1 }, "sandbox.memoryMb"],
    [{ pids: 1e308 }, "sandbox.pids"],
    [{ memoryMb: "512" }, "sandbox.memoryMb"],
    [{ extra: 1 }, "sandbox"],
  ])("%j is a 400 naming %s", async (sandbox, path) => {
    const res = await put(sandbox);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("VALIDATION");
    expect(res.body.error.details.map((d: { path: string }) => d.path).join(" ")).toContain(path);
  });

  it("stores an allowed image, limits and variables; values are sealed and never returned", async () => {
    const res = await put({
      image: "toolshed-sandbox:alt",
      memoryMb: 512,
      cpus: 0.5,
      pids: 64,
      diskMb: 64,
      env: { API_TOKEN: "s3cret-value", REGION: "eu", TZ: "Europe/Paris", LANG: "C.UTF-8" },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.sandbox).toEqual({
      image: "toolshed-sandbox:alt",
      memoryMb: 512,
      cpus: 0.5,
      pids: 64,
      diskMb: 64,
      env: ["API_TOKEN", "LANG", "REGION", "TZ"],
    });
    const got = await t.call("GET", `/v1/tenants/${a.tenantId}/settings`, { key: a.adminKey });
    expect(JSON.stringify(got.body)).not.toContain("s3cret-value");
    const row = t.deps.db.select().from(tenantSettings).all();
    expect(JSON.stringify(row)).not.toContain("s3cret-value");
    // A field left out keeps its value; null returns to the default; env replaces the set.
    const next = await put({ memoryMb: null, env: { REGION: "us" } });
    expect(next.body.sandbox).toMatchObject({
      image: "toolshed-sandbox:alt",
      memoryMb: null,
      env: ["REGION"],
    });
  });

  it("only the tenant's admin (or the platform admin) may set them; other tenants get a 404", async () => {
    expect((await put({ memoryMb: 512 }, a.agentKey)).status).toBe(403);
    const b = await seedTenant(t.call, "b");
    expect((await put({ memoryMb: 512 }, b.adminKey)).status).toBe(404);
    expect((await put({ memoryMb: 512 }, ADMIN_KEY)).status).toBe(200);
  });
});
