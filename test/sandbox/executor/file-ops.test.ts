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
