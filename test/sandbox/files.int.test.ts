import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Sandbox, SandboxFileError } from "../../src/sandbox/sandbox.js";
import { createTestProvider, identitiesOf, sh, type TestProvider } from "./harness.js";

describe("sandbox files", () => {
  let t: TestProvider;
  let a: Sandbox;
  let b: Sandbox;

  beforeAll(async () => {
    t = await createTestProvider();
    [a, b] = await Promise.all([
      t.provider.acquire({ sessionId: "ses_files_a", tenantId: "ten_a" }),
      t.provider.acquire({ sessionId: "ses_files_b", tenantId: "ten_a" }),
    ]);
  });
  afterAll(async () => t?.cleanup());

  const fileError = async (p: Promise<unknown>) => {
    const err = await p.then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(SandboxFileError);
    return (err as SandboxFileError).code;
  };

  it("writes with parents, reads back bytes, and stats", async () => {
    const data = Buffer.from([0, 1, 2, 255, 10, 13]);
    const st = await a.writeFile("/workspace/deep/er/bin.dat", data);
    expect(st).toMatchObject({ type: "file", size: 6 });
    const read = await a.readFile("deep/er/bin.dat");
    expect(read.data.equals(data)).toBe(true);
    expect(read.size).toBe(6);
    expect(read.mtimeMs).toBe(st.mtimeMs);
    const owner = await a.exec(sh("stat -c %u deep/er/bin.dat"));
    expect(owner.stdout).toBe(`${(await identitiesOf("ses_files_a", t.serviceId)).agent}\n`);
    expect(await a.stat("deep")).toMatchObject({ type: "directory" });
    expect(await a.stat("missing")).toBeNull();
  });

  it("maps errors to errno codes", async () => {
    expect(await fileError(a.readFile("/workspace/nope"))).toBe("ENOENT");
    expect(await fileError(a.readFile("/workspace"))).toBe("EISDIR");
    expect(await fileError(a.readFile("/etc/passwd", { maxBytes: 8 }))).toBe("EFBIG");
    expect(await fileError(a.writeFile("/usr/x", "no"))).toBe("EACCES");
  });

  it("bounds reads of endless or special files", async () => {
    expect(await fileError(a.readFile("/proc/self/status", { maxBytes: 16 }))).toBe("EFBIG");
    await a.exec(sh("mkfifo /tmp/fifo"));
    expect(await fileError(a.readFile("/tmp/fifo"))).toBe("EIO");
  });

  it("a read of a FIFO does not open it: a writer blocked in its open stays blocked", async () => {
    // The writer's open returns only once a reader opens the FIFO; a read that opened it (even
    // O_NONBLOCK, only to refuse it) would wake the writer and leave it an EPIPE.
    await a.exec(sh("mkfifo /tmp/wfifo"));
    const writer = a.exec(sh("exec 3>/tmp/wfifo; echo woke > /tmp/woke", { timeoutMs: 1500 }));
    await new Promise((r) => setTimeout(r, 400));
    expect(await fileError(a.readFile("/tmp/wfifo"))).toBe("EIO");
    const ended = await writer;
    expect(ended.timedOut).toBe(true);
    expect(await a.stat("/tmp/woke")).toBeNull();
  });

  it("a read of a device is refused without opening it", async () => {
    expect(await fileError(a.readFile("/dev/zero"))).toBe("EIO");
    expect(await fileError(a.readFile("/dev/null"))).toBe("EIO");
  });

  it("resolves symlinks inside the container, and missing leaves through their parent", async () => {
    await a.exec(sh("mkdir -p real/dir && ln -sfn real/dir link && ln -sfn /etc/passwd pw"));
    expect(await a.realPath("link/x/y.txt")).toBe("/workspace/real/dir/x/y.txt");
    expect(await a.realPath("/workspace/pw")).toBe("/etc/passwd");
    expect(await a.stat("pw")).toMatchObject({ type: "symlink" });
    // A symlink to a host path means the container's path: the host file is never read.
    await a.exec(sh("ln -sfn /etc/hostname host-name"));
    expect((await a.readFile("host-name")).data.toString()).toBe("sandbox\n");
  });

  it("keeps two sessions' files apart", async () => {
    await a.writeFile("secret.txt", "only a");
    expect(await b.stat("/workspace/secret.txt")).toBeNull();
    const ls = await b.exec(sh("ls -A /workspace; cat /workspace/secret.txt 2>&1"));
    expect(ls.stdout).not.toContain("only a");
  });
});
