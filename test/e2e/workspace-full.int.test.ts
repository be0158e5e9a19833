/**
 * A session's workspace fills (its quota, SANDBOX_DISK_MB, reached) and the agent overwrites an
 * existing file: Write, Edit and an upload over it fail with a clear "no space" answer and the old
 * content stays whole (before: the executor truncated the file first, so the failed write left it
 * empty or partial). Once space is freed the same write goes through. Real API, queue, container.
 * Workspace quotas loop-mount a filesystem per session: root and loop devices, else skipped.
 */
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { quotaSupportProblem } from "../../src/sandbox/workspace-volume.js";
import { type Harness, seedBashTenant, startHarness } from "../support/harness.js";

const problem = quotaSupportProblem(
  { diskBytes: 16 << 20, inodes: 1000 },
  { uid: process.getuid?.(), loopControl: existsSync("/dev/loop-control") },
);
let h: Harness | undefined;

describe.skipIf(problem !== null)(
  problem ? `a full workspace: skipped, ${problem}` : "a full workspace",
  () => {
    beforeAll(async () => {
      h = await startHarness({ env: { SANDBOX_DISK_MB: "16", SANDBOX_INODES: "1000" } });
    }, 60_000);
    afterAll(async () => {
      await h?.stop().catch(() => undefined);
    });

    it("Write, Edit and an upload over an existing file fail clearly and keep its old content", async () => {
      const { call, url } = h!;
      const t = await seedBashTenant(call);
      const key = t.agentKey;
      const rules = {
        allow: ["Bash", "Read", "Write(/workspace/**)", "Edit(/workspace/**)"],
        deny: [],
        ask: [],
      };
      const put = await call("PUT", `/v1/tenants/${t.tenantId}/rules`, { key: t.adminKey, body: rules });
      expect(put.status, JSON.stringify(put.body)).toBe(200);
      const sid = (await call("POST", "/v1/sessions", { key, body: {} })).body.id as string;
      // The call's end and its result; `ok`: it must have succeeded.
      const call1 = async (tool: string, input: Record<string, unknown>, ok = true) => {
        const r = await call("POST", `/v1/sessions/${sid}/calls?wait=30`, { key, body: { tool, input } });
        const status = r.body.job?.status as string;
        if (ok) expect(status, JSON.stringify(r.body).slice(-2000)).toBe("succeeded");
        return { status, ...(r.body.job.result as { isError?: boolean; content: { text: string }[] }) };
      };
      const run = (tool: string, input: Record<string, unknown>) => call1(tool, input);
      const sha = (s: string) => createHash("sha256").update(s).digest("hex");
      const hashOnDisk = async () =>
        (await run("Bash", { command: "sha256sum < /workspace/keep.txt" })).content[0]!.text;

      const before = Array.from({ length: 20_000 }, (_, i) => `line ${i}\n`).join(""); // ~190 kB
      await run("Write", { file_path: "/workspace/keep.txt", content: before });
      await run("Read", { file_path: "/workspace/keep.txt", limit: 1 });
      // Fill the workspace: the shell's own write stops at the quota.
      const filled = await run("Bash", { command: "head -c 100M /dev/zero > /workspace/filler; echo rc=$?" });
      expect(filled.content[0]!.text).toMatch(/rc=1/);

      const full =
        "Error writing file: no space left for /workspace/keep.txt: the session's workspace, or the host's disk, is full. The file was left as it was; free some space and try again.";
      const w = await call1("Write", { file_path: "/workspace/keep.txt", content: before.repeat(2) }, false);
      expect([w.status, w.content[0]!.text]).toEqual(["failed", full]);
      expect(await hashOnDisk()).toContain(sha(before));

      const edit = { file_path: "/workspace/keep.txt", old_string: "line 0\n", new_string: "zero\n" };
      const e = await call1("Edit", edit, false);
      expect([e.status, e.content[0]!.text]).toEqual(["failed", full]);
      expect(await hashOnDisk()).toContain(sha(before));

      const up = await fetch(`${url}/v1/sessions/${sid}/files?path=/workspace/keep.txt`, {
        method: "PUT",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/octet-stream" },
        body: Buffer.alloc(1 << 20, 0x61),
      });
      // biome-ignore lint/suspicious/noExplicitAny: tests assert on JSON bodies freely
      const upBody: any = await up.json();
      expect(up.status, JSON.stringify(upBody)).toBe(413);
      expect(upBody.error.message).toContain("no space left for /workspace/keep.txt");
      expect(await hashOnDisk()).toContain(sha(before));
      // Nothing left behind holding the space.
      const ls = await run("Bash", { command: "ls -A /workspace" });
      expect(ls.content[0]!.text.split("\n").filter(Boolean).sort()).toEqual(["filler", "keep.txt"]);

      // Space freed: the same Edit goes through, on the file as it was.
      await run("Bash", { command: "rm /workspace/filler" });
      await run("Edit", edit);
      expect(await hashOnDisk()).toContain(sha(`zero\n${before.slice("line 0\n".length)}`));
    }, 180_000);
  },
);
