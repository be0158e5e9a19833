// suite: parallel — pkill runs inside its own container
import { rm } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LABEL_HARDENING } from "../../src/sandbox/container-spec.js";
import { HARDENING_DIGEST } from "../../src/sandbox/host-kernel-limits.js";
import { SandboxUnavailableError } from "../../src/sandbox/sandbox.js";
import {
  createTestProvider,
  docker,
  execAsRoot,
  serviceContainers,
  sh,
  type TestProvider,
} from "./harness.js";

const running = async (serviceId: string, sessionId: string) =>
  (await serviceContainers(serviceId, sessionId)).map((c) => c.State);

describe("sandbox lifecycle", () => {
  let t: TestProvider;

  beforeAll(async () => {
    t = await createTestProvider({ idleStopMs: 1000 });
  });
  afterAll(async () => t?.cleanup());

  it("creates exactly one container for concurrent acquires of a session", async () => {
    const sbs = await Promise.all(
      Array.from({ length: 6 }, () => t.provider.acquire({ sessionId: "ses_race", tenantId: "ten_a" })),
    );
    expect(new Set(sbs).size).toBe(1);
    expect(await running(t.serviceId, "ses_race")).toEqual(["running"]);
    const containers = await serviceContainers(t.serviceId, "ses_race");
    expect(containers[0]?.Labels).toMatchObject({ "toolshed.tenant": "ten_a" });
  });

  it("stops an idle container and brings it back on the same workspace", async () => {
    const sb = await t.provider.acquire({ sessionId: "ses_idle", tenantId: "ten_a" });
    await sb.writeFile("keep.txt", "still here");
    await sb.exec(sh("echo gone > /tmp/scratch"));
    await expect
      .poll(() => running(t.serviceId, "ses_idle"), { timeout: 20_000, interval: 250 })
      .toEqual(["exited"]);
    // The same handle keeps working: the call starts the container again.
    const r = await sb.exec(sh("cat keep.txt; cat /tmp/scratch 2>/dev/null || echo tmp-is-fresh"));
    expect(r.stdout).toBe("still heretmp-is-fresh\n");
    expect(await running(t.serviceId, "ses_idle")).toEqual(["running"]);
  });

  it("does not stop a container while a call is running", async () => {
    const sb = await t.provider.acquire({ sessionId: "ses_busy", tenantId: "ten_a" });
    const r = await sb.exec(sh("sleep 2.5; echo finished"));
    expect(r.stdout).toBe("finished\n");
  });

  it("stop() then acquire() restarts the same container", async () => {
    const sb = await t.provider.acquire({ sessionId: "ses_stop", tenantId: "ten_a" });
    await sb.writeFile("a.txt", "A");
    const [before] = await serviceContainers(t.serviceId, "ses_stop");
    await t.provider.stop("ses_stop");
    expect(await running(t.serviceId, "ses_stop")).toEqual(["exited"]);
    const again = await t.provider.acquire({ sessionId: "ses_stop", tenantId: "ten_a" });
    expect((await again.readFile("a.txt")).data.toString()).toBe("A");
    const [after] = await serviceContainers(t.serviceId, "ses_stop");
    expect(after?.Id).toBe(before?.Id);
  });

  // attack27b: the seccomp profile, ulimits and devpts live in the create options, so a stopped
  // container made before a change would otherwise come back without it.
  it("makes a stopped container again when its kernel hardening is not the current one", async () => {
    const sb = await t.provider.acquire({ sessionId: "ses_harden", tenantId: "ten_a" });
    await sb.writeFile("a.txt", "A");
    await t.provider.stop("ses_harden");
    const [old] = await serviceContainers(t.serviceId, "ses_harden");
    const info = await docker.getContainer(old!.Id).inspect();
    await docker.getContainer(old!.Id).remove({ v: true });
    const labels = { ...info.Config.Labels, [LABEL_HARDENING]: "before" };
    const made = await docker.createContainer({
      ...info.Config,
      name: info.Name.slice(1),
      Labels: labels,
      HostConfig: info.HostConfig,
    });
    const again = await t.provider.acquire({ sessionId: "ses_harden", tenantId: "ten_a" });
    expect((await again.readFile("a.txt")).data.toString()).toBe("A");
    const [now] = await serviceContainers(t.serviceId, "ses_harden");
    expect(now?.Id).not.toBe(made.id);
    expect(now?.Labels[LABEL_HARDENING]).toBe(HARDENING_DIGEST);
  });

  it("recovers when the executor dies under a call", async () => {
    const sb = await t.provider.acquire({ sessionId: "ses_crash", tenantId: "ten_a" });
    await sb.writeFile("x.txt", "x");
    // The agent cannot kill its executor (another uid); the engine's root can.
    const call = sb.exec(sh("echo started; sleep 5")).then(
      () => "resolved",
      (err: unknown) => err,
    );
    const [info] = await serviceContainers(t.serviceId, "ses_crash");
    await execAsRoot(info!.Id, ["pkill", "-9", "-f", "^node /opt/toolshed/executor"]);
    expect(await call).toBeInstanceOf(SandboxUnavailableError);
    const r = await sb.exec(sh("cat x.txt"));
    expect(r.stdout).toBe("x");
  });

  it("refuses a session id that could escape the data directory", async () => {
    await expect(t.provider.acquire({ sessionId: "../etc", tenantId: "ten_a" })).rejects.toThrow(
      /invalid session id/,
    );
  });

  it("remove() deletes the container and the workspace", async () => {
    const sb = await t.provider.acquire({ sessionId: "ses_rm", tenantId: "ten_a" });
    await sb.writeFile("f.txt", "f");
    await t.provider.remove("ses_rm");
    expect(await serviceContainers(t.serviceId, "ses_rm")).toEqual([]);
    const fresh = await t.provider.acquire({ sessionId: "ses_rm", tenantId: "ten_a" });
    expect(await fresh.stat("f.txt")).toBeNull();
  });

  it("after remove(), the call in flight and later calls on the handle do not start the container again", async () => {
    const sb = await t.provider.acquire({ sessionId: "ses_gone", tenantId: "ten_a" });
    await sb.exec(sh("true"));
    const call = sb.exec(sh("sleep 30")).then(
      () => "resolved",
      (err: unknown) => err,
    );
    await t.provider.remove("ses_gone");
    // Its session was deleted: the call ends instead of restarting the sandbox it ran in.
    expect(await call).toBeInstanceOf(SandboxUnavailableError);
    await expect(sb.exec(sh("true"))).rejects.toBeInstanceOf(SandboxUnavailableError);
    expect(await serviceContainers(t.serviceId, "ses_gone")).toEqual([]);
  });
});

describe("sandbox restart and orphans", () => {
  let a: TestProvider;
  let other: TestProvider;

  beforeAll(async () => {
    a = await createTestProvider();
    other = await createTestProvider();
  });
  afterAll(async () => {
    await a?.cleanup();
    await other?.cleanup();
    // `a` is re-created on the same data directory, which its cleanup leaves alone.
    if (a) await rm(a.dataDir, { recursive: true, force: true });
  });

  it("a new process adopts the running containers of its predecessor", async () => {
    const sb = await a.provider.acquire({ sessionId: "ses_adopt", tenantId: "ten_a" });
    await sb.writeFile("note.txt", "before restart");
    const [before] = await serviceContainers(a.serviceId, "ses_adopt");
    await a.provider.close({ stopContainers: false });

    a = await createTestProvider({}, { serviceId: a.serviceId, dataDir: a.dataDir });
    const again = await a.provider.acquire({ sessionId: "ses_adopt", tenantId: "ten_a" });
    expect((await again.readFile("note.txt")).data.toString()).toBe("before restart");
    const [after] = await serviceContainers(a.serviceId, "ses_adopt");
    expect(after?.Id).toBe(before?.Id);
    expect(after?.State).toBe("running");
  });

  it("a new process stops the containers it inherited once idle, even those it never used", async () => {
    await a.provider.acquire({ sessionId: "ses_inherit", tenantId: "ten_a" });
    await a.provider.close({ stopContainers: false });
    a = await createTestProvider({ idleStopMs: 1000 }, { serviceId: a.serviceId, dataDir: a.dataDir });
    await expect
      .poll(() => running(a.serviceId, "ses_inherit"), { timeout: 20_000, interval: 100 })
      .toEqual(["exited"]);
  });

  it("refuses to reuse a session container labelled for another tenant", async () => {
    await a.provider.acquire({ sessionId: "ses_tenant", tenantId: "ten_a" });
    await expect(a.provider.acquire({ sessionId: "ses_tenant", tenantId: "ten_b" })).rejects.toBeInstanceOf(
      SandboxUnavailableError,
    );
    await a.provider.stop("ses_tenant");
    await expect(a.provider.acquire({ sessionId: "ses_tenant", tenantId: "ten_b" })).rejects.toBeInstanceOf(
      SandboxUnavailableError,
    );
  });

  it("reapOrphans removes only its own service's containers that no live session owns", async () => {
    await Promise.all([
      a.provider.acquire({ sessionId: "ses_live", tenantId: "ten_a" }),
      a.provider.acquire({ sessionId: "ses_orphan", tenantId: "ten_a" }),
      other.provider.acquire({ sessionId: "ses_orphan", tenantId: "ten_a" }),
    ]);
    const before = (await serviceContainers(a.serviceId)).length;
    const reaped = await a.provider.reapOrphans(new Set(["ses_live", "ses_adopt"]));
    expect(reaped).toBe(before - 2);
    const left = (await serviceContainers(a.serviceId)).map((c) => c.Labels["toolshed.session"]).sort();
    expect(left).toEqual(["ses_adopt", "ses_live"]);
    expect(await serviceContainers(other.serviceId, "ses_orphan")).toHaveLength(1);
    // A reaped session comes back fresh on its next acquire.
    const back = await a.provider.acquire({ sessionId: "ses_orphan", tenantId: "ten_a" });
    expect((await back.exec(sh("echo back"))).stdout).toBe("back\n");
  });

  it("keeps services apart: one session id under two services is two containers, stopped one at a time", async () => {
    await a.provider.acquire({ sessionId: "ses_shared", tenantId: "ten_a" });
    await other.provider.acquire({ sessionId: "ses_shared", tenantId: "ten_a" });
    const [mine] = await serviceContainers(a.serviceId, "ses_shared");
    const [theirs] = await serviceContainers(other.serviceId, "ses_shared");
    expect(mine?.Id).toBeDefined();
    expect(theirs?.Id).toBeDefined();
    expect(mine?.Id).not.toBe(theirs?.Id);
    await a.provider.stop("ses_shared");
    expect(await running(a.serviceId, "ses_shared")).not.toEqual(["running"]);
    expect(await running(other.serviceId, "ses_shared")).toEqual(["running"]);
  });
});
