import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "../../src/sandbox/sandbox.js";
import { createTestProvider, sh, type TestProvider } from "./harness.js";

describe("sandbox resource limits", () => {
  let t: TestProvider;
  let flooded: Sandbox;
  let neighbour: Sandbox;

  beforeAll(async () => {
    t = await createTestProvider();
    [flooded, neighbour] = await Promise.all([
      t.provider.acquire({ sessionId: "ses_flood", tenantId: "ten_a" }),
      t.provider.acquire({ sessionId: "ses_neighbour", tenantId: "ten_b" }),
    ]);
  });
  afterAll(async () => t?.cleanup());

  it("stops a fork flood at the pids limit while another session still answers quickly", async () => {
    const flood = flooded.exec(sh("for i in $(seq 1 2000); do sleep 30 & done; wait", { timeoutMs: 6000 }));
    await new Promise((r) => setTimeout(r, 1500));
    // The neighbour answers while the flood still runs (it lasts until its 6 s timeout): a
    // starved or blocked neighbour would lose this race. No wall clock is asserted.
    const probe = neighbour.exec(sh("echo alive"));
    const first = await Promise.race([probe.then(() => "neighbour"), flood.then(() => "flood")]);
    expect(first).toBe("neighbour");
    expect((await probe).stdout).toBe("alive\n");

    const r = await flood;
    expect(r.timedOut).toBe(true);
    // The cgroup counted refused forks, and the group kill freed every pid again.
    const events = await flooded.exec(
      sh(
        "cat /sys/fs/cgroup/pids/pids.events 2>/dev/null || cat /sys/fs/cgroup/pids.events; pgrep -c sleep || true",
      ),
    );
    const [maxLine, sleepers] = events.stdout.trim().split("\n");
    expect(Number(maxLine?.split(" ")[1])).toBeGreaterThan(0);
    expect(sleepers).toBe("0");
  });

  it("kills a command that exceeds the memory limit, not the executor", async () => {
    const r = await flooded.exec({
      argv: ["python3", "-c", "b = bytearray(600 * 1024 * 1024); print(len(b))"],
      timeoutMs: 30_000,
      maxOutputBytes: 4096,
    });
    expect(r.exitCode).not.toBe(0);
    const after = await flooded.exec(sh("echo still here"));
    expect(after.stdout).toBe("still here\n");
  });
});
