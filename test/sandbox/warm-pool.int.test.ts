/**
 * Warm sandboxes: a new session claims a started container; its workspace (a quota volume) and
 * the tenant's read-only skills appear inside through mount propagation, it runs as the agent, the
 * pool refills, and when the session stops the warm container goes and the next start finds the
 * same workspace. A tenant's own image, limits or disk size start cold (warm containers have the
 * defaults). Closing the provider removes every warm container, unclaimed or claimed.
 */
// suite: parallel — the containers it counts are its own service's
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { sessionPaths } from "../../src/sandbox/session-paths.js";
import { LABEL_WARM } from "../../src/sandbox/warm-pool.js";
import { pollUntil } from "../support/wait-for-job.js";
import {
  createWarmTestProvider,
  docker,
  identitiesLabelled,
  sh,
  TEST_IMAGE,
  type TestProvider,
} from "./harness.js";

/** A claimed container under its session's name: renamed after its first result, off the call's path. */
const renamed = (name: string) =>
  pollUntil(
    () =>
      docker
        .getContainer(name)
        .inspect()
        .catch(() => null),
    (i) => i !== null,
    { timeoutMs: 10_000, what: "the claimed container renamed" },
  );

let t: TestProvider;
// The same image under another name: still a tenant's own choice (the pool's is TEST_IMAGE).
let TEST_IMAGE_BY_ID = "";
let skills: string;
const spec = () => ({
  sessionId: "ses_warm1",
  tenantId: "ten_a",
  readOnlyMounts: [{ hostPath: skills, containerPath: "/skills" }],
});

beforeAll(async () => {
  skills = await mkdtemp(join(tmpdir(), "tsk-"));
  await writeFile(join(skills, "hello.md"), "skill text\n");
  await chmod(skills, 0o755);
  TEST_IMAGE_BY_ID = (await docker.getImage(TEST_IMAGE).inspect()).Id;
  t = await createWarmTestProvider();
}, 90_000);
afterAll(async () => {
  await t?.cleanup();
  await rm(skills, { recursive: true, force: true });
});

it("a new session claims a warm container with its own workspace, quota, skills and identity", async () => {
  const sb = await t.provider.acquire(spec());
  const paths = sessionPaths(t.dataDir, t.serviceId, "ses_warm1");
  const run = async (cmd: string) => (await sb.exec(sh(cmd))).stdout;
  const uid = await run("id -u; cat /skills/hello.md");
  // Renamed to the session's after its first result (off the first call's path).
  const info = await renamed(paths.containerName);
  expect(info?.Config.Labels[LABEL_WARM]).toBe("1");
  // The agent of the container's own range (a uid slot's, or the shared one).
  expect(uid).toBe(`${identitiesLabelled(info?.Config.Labels).agent}\nskill text\n`);
  expect(await run("touch /skills/x 2>&1 || echo refused")).toContain("refused");
  expect(await run("echo kept > /workspace/f && cat /workspace/f")).toBe("kept\n");
  // The file is in the session's own workspace on the host (the quota volume).
  expect(await readFile(join(paths.workspaceDir, "f"), "utf8")).toBe("kept\n");
  const full = await run("dd if=/dev/zero of=/workspace/big bs=1M count=32 2>&1; rm -f /workspace/big");
  expect(full).toContain("No space left on device");
  await pollUntil(
    () => t.provider.warmReady,
    (n) => n === 2,
    { timeoutMs: 60_000, what: "the pool to refill" },
  );
}, 90_000);

it("a stopped warm session's container goes; its next start finds the same workspace", async () => {
  await t.provider.stop("ses_warm1");
  const paths = sessionPaths(t.dataDir, t.serviceId, "ses_warm1");
  await expect(docker.getContainer(paths.containerName).inspect()).rejects.toMatchObject({ statusCode: 404 });
  const sb = await t.provider.acquire(spec());
  expect((await sb.exec(sh("cat /workspace/f; cat /skills/hello.md"))).stdout).toBe("kept\nskill text\n");
}, 60_000);

it("a session with its tenant's own container settings starts cold; the warm ones stay for others", async () => {
  await pollUntil(
    () => t.provider.warmReady,
    (n) => n === 2,
    { timeoutMs: 60_000, what: "the pool to refill" },
  );
  const sb = await t.provider.acquire({ sessionId: "ses_own1", tenantId: "ten_b", settings: { pids: 77 } });
  const paths = sessionPaths(t.dataDir, t.serviceId, "ses_own1");
  const info = await docker.getContainer(paths.containerName).inspect();
  expect(info.Config.Labels[LABEL_WARM]).toBeUndefined();
  expect(info.HostConfig.PidsLimit).toBe(77);
  expect((await sb.exec(sh("echo cold"))).stdout).toBe("cold\n");
  expect(t.provider.warmReady).toBe(2);
}, 60_000);

it("concurrent new sessions never share a warm container; more sessions than warm ones start cold", async () => {
  await pollUntil(
    () => t.provider.warmReady,
    (n) => n === 2,
    { timeoutMs: 60_000, what: "the pool to refill" },
  );
  const ids = ["ses_conc1", "ses_conc2", "ses_conc3"];
  const boxes = await Promise.all(
    ids.map((sessionId) => t.provider.acquire({ sessionId, tenantId: "ten_c" })),
  );
  // Each writes its own name, then reads it back: a shared container or workspace would mix them.
  await Promise.all(boxes.map((sb, i) => sb.exec(sh(`echo ${ids[i]} > /workspace/me`))));
  for (const [i, sb] of boxes.entries())
    expect((await sb.exec(sh("cat /workspace/me"))).stdout).toBe(`${ids[i]}\n`);
  const containers = await Promise.all(
    ids.map((s) =>
      pollUntil(
        () =>
          docker
            .getContainer(sessionPaths(t.dataDir, t.serviceId, s).containerName)
            .inspect()
            .catch(() => null),
        (i) => i !== null,
        { timeoutMs: 10_000, what: `the container of ${s}` },
      ),
    ),
  );
  expect(new Set(containers.map((c) => c?.Id)).size).toBe(3);
  // Two of them warm (claimed), one cold: the pool had two.
  expect(containers.filter((c) => c?.Config.Labels[LABEL_WARM] === "1")).toHaveLength(2);
  await Promise.all(ids.map((s) => t.provider.remove(s)));
}, 90_000);

it.each([
  ["its own image", () => ({ image: TEST_IMAGE_BY_ID })],
  ["its own memory limit", () => ({ memoryBytes: 300 * 1024 * 1024 })],
  ["its own CPU limit", () => ({ nanoCpus: 500_000_000 })],
  ["its own workspace size", () => ({ diskBytes: 12 * 1024 * 1024 })],
])(
  "a tenant with %s never gets a warm container",
  async (_what, own) => {
    const settings = own();
    await pollUntil(
      () => t.provider.warmReady,
      (n) => n === 2,
      { timeoutMs: 60_000, what: "the pool to refill" },
    );
    const sessionId = `ses_own${Object.keys(settings)[0]}`;
    const sb = await t.provider.acquire({ sessionId, tenantId: "ten_d", settings });
    expect((await sb.exec(sh("echo cold"))).stdout).toBe("cold\n");
    const info = await docker
      .getContainer(sessionPaths(t.dataDir, t.serviceId, sessionId).containerName)
      .inspect();
    expect(info.Config.Labels[LABEL_WARM]).toBeUndefined();
    expect(t.provider.warmReady).toBe(2);
    await t.provider.remove(sessionId);
  },
  60_000,
);

it("a tenant's environment is given to commands in a warm container (it is not part of the container)", async () => {
  const sb = await t.provider.acquire({
    sessionId: "ses_env1",
    tenantId: "ten_e",
    settings: { env: { GREETING: "hi" } },
  });
  expect((await sb.exec(sh("echo $GREETING"))).stdout).toBe("hi\n");
  const name = sessionPaths(t.dataDir, t.serviceId, "ses_env1").containerName;
  const info = await renamed(name);
  expect(info?.Config.Labels[LABEL_WARM]).toBe("1");
  expect(info?.Config.Env.some((e) => e.startsWith("GREETING"))).toBe(false);
  await t.provider.remove("ses_env1");
}, 60_000);

// The service's skills directory always holds its hidden version store (`.v`): still no skill.
it.each([
  ["an empty directory", "ses_noskills1"],
  ["only the hidden version store", "ses_noskills2"],
])(
  "a tenant without skills yet (%s) sees the ones added after its first call (the mount follows that call)",
  async (_, sid) => {
    await pollUntil(
      () => t.provider.warmReady,
      (n) => n >= 1,
      { timeoutMs: 60_000, what: "a warm sandbox" },
    );
    const empty = await mkdtemp(join(tmpdir(), "tsk-"));
    await chmod(empty, 0o755);
    try {
      if (sid === "ses_noskills2") await mkdir(join(empty, ".v"));
      const sb = await t.provider.acquire({
        sessionId: sid,
        tenantId: "ten_f",
        readOnlyMounts: [{ hostPath: empty, containerPath: "/skills" }],
      });
      expect((await sb.exec(sh("ls -A /skills | wc -l"))).stdout).toBe("0\n");
      await writeFile(join(empty, "later.md"), "added later\n");
      const seen = await pollUntil(
        async () => (await sb.exec(sh("cat /skills/later.md 2>/dev/null"))).stdout,
        (out) => out !== "",
        { timeoutMs: 10_000, what: "the skill added after the first call" },
      );
      expect(seen).toBe("added later\n");
      expect((await sb.exec(sh("touch /skills/x 2>&1 || echo refused"))).stdout).toContain("refused");
      const name = sessionPaths(t.dataDir, t.serviceId, sid).containerName;
      // A loaded machine may not have renamed it yet.
      const info = await renamed(name);
      expect(info?.Config.Labels[LABEL_WARM]).toBe("1");
      await t.provider.remove(sid);
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
  },
  60_000,
);

it("closing the provider removes the warm containers", async () => {
  await t.provider.close();
  const left = await docker.listContainers({
    all: true,
    filters: { label: [`toolshed.service=${t.serviceId}`, `${LABEL_WARM}=1`] },
  });
  expect(left).toHaveLength(0);
});
