/**
 * Per-tenant sandbox settings with real containers: a new session's sandbox gets the tenant's
 * environment variables (in every command, never in the container's configuration or in GET)
 * and its memory, CPU and pids limits (read back from the engine).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { docker, serviceContainers, TEST_IMAGE } from "../sandbox/harness.js";
import { type Harness, seedBashTenant, startHarness } from "../support/harness.js";
import { jobText, runTool } from "../support/tool-calls.js";

const ALT_IMAGE = "toolshed-sandbox:tenant-alt";
let h: Harness;
let t: Awaited<ReturnType<typeof seedBashTenant>>;

async function bash(sid: string, command: string): Promise<string> {
  const job = await runTool(h.call, t.agentKey, sid, "Bash", { command });
  expect(job.status, jobText(job)).toBe("succeeded");
  return jobText(job);
}

beforeAll(async () => {
  await docker.getImage(TEST_IMAGE).tag({ repo: "toolshed-sandbox", tag: "tenant-alt" });
  h = await startHarness({
    env: { SANDBOX_MAX_MEMORY_MB: "512", SANDBOX_MAX_PIDS: "200", SANDBOX_IMAGE_ALLOWLIST: ALT_IMAGE },
  });
  t = await seedBashTenant(h.call);
});

afterAll(async () => {
  await h?.stop();
  // Only the extra tag goes: the image keeps its own.
  await docker
    .getImage(ALT_IMAGE)
    .remove()
    .catch(() => undefined);
});

describe("a tenant's sandbox settings", () => {
  it("over the platform's cap, or an image off the allowlist, is a 400 naming the field", async () => {
    for (const [sandbox, path] of [
      [{ memoryMb: 1024 }, "sandbox.memoryMb"],
      [{ image: "busybox:latest" }, "sandbox.image"],
    ] as const) {
      const res = await h.call("PUT", `/v1/tenants/${t.tenantId}/settings`, {
        key: t.adminKey,
        body: { sandbox },
      });
      expect(res.status).toBe(400);
      expect(res.body.error.details[0].path).toBe(path);
    }
  });

  it("reach new sessions: variables in commands, limits on the container", async () => {
    const put = await h.call("PUT", `/v1/tenants/${t.tenantId}/settings`, {
      key: t.adminKey,
      body: {
        sandbox: {
          image: ALT_IMAGE,
          memoryMb: 300,
          cpus: 0.5,
          pids: 100,
          diskMb: 64,
          env: { TENANT_TOKEN: "tok-4711", REGION: "eu" },
        },
      },
    });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    const got = await h.call("GET", `/v1/tenants/${t.tenantId}/settings`, { key: t.adminKey });
    expect(got.body.sandbox.env).toEqual(["REGION", "TENANT_TOKEN"]);
    expect(JSON.stringify(got.body)).not.toContain("tok-4711");

    const sid = (await h.call("POST", "/v1/sessions", { key: t.agentKey, body: {} })).body.id as string;
    expect(await bash(sid, 'echo "$TENANT_TOKEN/$REGION"')).toBe("tok-4711/eu\n");
    // The workspace volume is made at the tenant's size (ext4 keeps a little for itself).
    const sizeMb = Number(await bash(sid, "df -P -m /workspace | tail -1 | awk '{print $2}'"));
    expect(sizeMb).toBeGreaterThan(40);
    expect(sizeMb).toBeLessThanOrEqual(64);

    const [info] = await serviceContainers(h.config.SERVICE_ID, sid);
    expect(info).toBeTruthy();
    const inspected = await docker.getContainer(info!.Id).inspect();
    expect(inspected.HostConfig.Memory).toBe(300 * 1024 * 1024);
    expect(inspected.HostConfig.NanoCpus).toBe(500_000_000);
    expect(inspected.HostConfig.PidsLimit).toBe(100);
    expect(inspected.Config.Image).toBe(ALT_IMAGE);
    expect(JSON.stringify(inspected.Config.Env)).not.toContain("tok-4711");
  });
});
