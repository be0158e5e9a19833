/**
 * The executor's file reads (src/sandbox/executor/file-ops.mjs), run here on the host's Linux: a
 * read looks at its path through an O_PATH descriptor and opens only a regular file, so that a
 * read refused (or thrown away: service/calls/fast-read.ts) has disturbed nothing.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
// @ts-expect-error: an untyped ES module of the image
import { readFile } from "../../../src/sandbox/executor/file-ops.mjs";

let dir: string;
let writer: ChildProcess | undefined;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "file-ops-"));
});
afterEach(() => {
  writer?.kill("SIGKILL");
  writer = undefined;
  rmSync(dir, { recursive: true, force: true });
});

const codeOf = (p: Promise<unknown>) =>
  p.then(
    () => "read",
    (e: { code?: string }) => e.code,
  );

/** Waits (bounded) until the process sleeps in the kernel function `wchan`. */
async function sleepsIn(pid: number, wchan: string): Promise<boolean> {
  for (let i = 0; i < 100; i++) {
    if (readFileSync(`/proc/${pid}/wchan`, "utf8") === wchan) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return false;
}

it("refuses a FIFO without opening it: a writer blocked in its open stays blocked", async () => {
  const fifo = join(dir, "fifo");
  const flag = join(dir, "woke");
  execFileSync("mkfifo", [fifo]);
  writer = spawn("sh", ["-c", `exec 3>'${fifo}'; echo woke > '${flag}'`], { stdio: "ignore" });
  expect(await sleepsIn(writer.pid as number, "wait_for_partner")).toBe(true);
  expect(await codeOf(readFile(fifo))).toBe("EIO");
  await new Promise((r) => setTimeout(r, 200));
  expect(existsSync(flag)).toBe(false);
  expect(readFileSync(`/proc/${writer.pid}/wchan`, "utf8")).toBe("wait_for_partner");
});

it("refuses devices and directories, reads regular files and what links name", async () => {
  expect(await codeOf(readFile("/dev/zero"))).toBe("EIO");
  expect(await codeOf(readFile("/dev/null"))).toBe("EIO");
  expect(await codeOf(readFile(dir))).toBe("EISDIR");
  expect(await codeOf(readFile(join(dir, "missing")))).toBe("ENOENT");
  const file = join(dir, "a.txt");
  writeFileSync(file, "hello\n");
  symlinkSync(file, join(dir, "link"));
  const got = await readFile(join(dir, "link"));
  expect(Buffer.from(got.data, "base64").toString()).toBe("hello\n");
  expect(got.realPath).toBe(file);
  expect(await codeOf(readFile(file, 3))).toBe("EFBIG");
});

/** readFile's outcome for each path as the file helper runs it: real uid 0, effective uid nobody. */
function readsAsAgent(paths: string[]): { code: string; message: string }[] {
  const ops = new URL("../../../src/sandbox/executor/file-ops.mjs", import.meta.url).href;
  const script = `import { readFile } from ${JSON.stringify(ops)};
    process.setgroups([65534]); process.setegid(65534); process.seteuid(65534);
    const out = [];
    for (const p of ${JSON.stringify(paths)})
      out.push(await readFile(p).then(() => ({ code: "read", message: "" }), (e) => ({ code: e.code, message: e.message })));
    console.log(JSON.stringify(out));`;
  const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], { timeout: 20_000 });
  return JSON.parse(String(out));
}

it("refuses what the agent may not read with the error an open of the path gave, naming the path", () => {
  execFileSync("chmod", ["0755", dir]);
  const closed = join(dir, "mode000");
  writeFileSync(closed, "secret\n", { mode: 0o000 });
  const shut = join(dir, "shut");
  execFileSync("mkdir", ["-m", "0700", shut]);
  writeFileSync(join(shut, "f"), "secret\n", { mode: 0o644 });
  // The helper's own /proc files (not dumpable once it took the agent's uid), another process's.
  const procs = ["/proc/self/environ", "/proc/self/mem", "/proc/self/stack", "/proc/1/environ"];
  const got = readsAsAgent([closed, join(shut, "f"), "/etc/shadow", ...procs]);
  expect(got.map((g) => g.code)).toEqual(Array(3 + procs.length).fill("EACCES"));
  expect(got[0]!.message).toBe(`EACCES: permission denied, open '${closed}'`);
  expect(got[2]!.message).toBe("EACCES: permission denied, open '/etc/shadow'");
  expect(got.map((g) => g.message).join("\n")).not.toContain("/proc/self/fd");
});
