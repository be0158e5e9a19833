import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "../../src/sandbox/sandbox.js";
import { createTestProvider, sh, type TestProvider } from "./harness.js";

// fd 0 of a command given no stdin: the spawner opens /dev/null once and gives that descriptor to
// every such command (spawn19). It must be /dev/null, read-only, and nothing one command does to
// it may show in the next one's.
describe("a command without stdin: its fd 0", () => {
  let t: TestProvider;
  let sb: Sandbox;

  beforeAll(async () => {
    t = await createTestProvider();
    sb = await t.provider.acquire({ sessionId: "ses_stdinnull", tenantId: "ten_a" });
  });
  afterAll(async () => t?.cleanup());

  const flagsOf0 = async (identity?: "reader") =>
    (
      await sb.exec(
        sh("readlink /proc/self/fd/0; grep ^flags /proc/self/fdinfo/0", identity ? { identity } : {}),
      )
    ).stdout;

  it("is /dev/null, read-only, and a flag one command sets on it does not reach the next", async () => {
    const before = await flagsOf0();
    expect(before).toMatch(/^\/dev\/null\nflags:\s+0?[0-7]*0\n$/);
    const w = await sb.exec(sh("echo x >&0 && echo wrote || echo refused"));
    expect(w.stdout).toBe("refused\n");
    // O_NONBLOCK (and O_APPEND, O_NOATIME...) are flags of the open file, shared by every copy.
    const set = await sb.exec({
      argv: [
        "python3",
        "-c",
        "import fcntl,os; fcntl.fcntl(0, fcntl.F_SETFL, fcntl.fcntl(0, fcntl.F_GETFL) | os.O_NONBLOCK | os.O_APPEND); print(oct(fcntl.fcntl(0, fcntl.F_GETFL)))",
      ],
      timeoutMs: 10_000,
      maxOutputBytes: 1000,
    });
    expect(set.exitCode).toBe(0);
    expect(await flagsOf0()).toBe(before);
    expect(await flagsOf0("reader")).toBe(before);
  });
});
