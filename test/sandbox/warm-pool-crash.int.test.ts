/**
 * A worker killed between a warm claim and the claim's rename (which waits for the first result):
 * the claimed container still has its warm name and no session label. The next worker on the same
 * engine and directory removes it (and the dead one's unclaimed warm containers) in its start-up
 * `reapOrphans`, never hands it out, and the session starts again on the same workspace volume
 * (adopted at the claim) in a container of its own. Nothing stays mounted afterwards.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { afterAll, expect, it } from "vitest";
import { sessionPaths } from "../../src/sandbox/session-paths.js";
import { LABEL_WARM } from "../../src/sandbox/warm-pool.js";
import { pollUntil } from "../support/wait-for-job.js";
import {
  createTestProvider,
  removeServiceContainers,
  serviceContainers,
  sh,
  type TestProvider,
} from "./harness.js";

const serviceId = `test-crash-${process.pid}`;
const sessionId = "ses_crash1";
let dataDir = "";
let child: ChildProcess | undefined;
let next: TestProvider | undefined;

afterAll(async () => {
  child?.kill("SIGKILL");
  await next?.cleanup();
  await removeServiceContainers(serviceId);
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

it("a worker restarted after a claim but before the rename neither leaks nor reuses the claimed container", async () => {
  dataDir = await mkdtemp(join(tmpdir(), "tsc-"));
  child = spawn(process.execPath, ["--import", "tsx", "test/sandbox/warm-claim-child.ts"], {
    env: { ...process.env, WARM_DATA_DIR: dataDir, WARM_SERVICE_ID: serviceId, WARM_SESSION: sessionId },
    stdio: ["ignore", "pipe", "inherit"],
  });
  await new Promise<void>((resolve, reject) => {
    createInterface({ input: child!.stdout! }).on("line", (l) => l === "claimed" && resolve());
    child!.once("exit", (code) => reject(new Error(`the claiming process exited (${code})`)));
  });
  const dead = child;
  await new Promise((r) => {
    dead.once("exit", r);
    dead.kill("SIGKILL");
  });
  const paths = sessionPaths(dataDir, serviceId, sessionId);
  // Killed before the rename: no container has the session's name; the dead process's are warm ones.
  const left = await serviceContainers(serviceId);
  expect(left.map((c) => c.Names[0])).not.toContain(`/${paths.containerName}`);
  expect(left.length).toBeGreaterThanOrEqual(2);
  expect(left.every((c) => c.Labels[LABEL_WARM] === "1")).toBe(true);
  const deadIds = new Set(left.map((c) => c.Id));

  // The next worker: same engine, service and directory; its start-up reaping, then the session again.
  next = await createTestProvider(
    { warmPool: 2, workspaceQuota: { diskBytes: 16 * 1024 * 1024, inodes: 1000 } },
    { serviceId, dataDir },
  );
  await next.provider.reapOrphans(new Set([sessionId]));
  const after = await serviceContainers(serviceId);
  expect(after.filter((c) => deadIds.has(c.Id))).toEqual([]);

  const sb = await next.provider.acquire({ sessionId, tenantId: "ten_crash" });
  expect((await sb.exec(sh("cat /workspace/f; ls /workspace"))).stdout).toBe("kept\nf\n");
  const own = await pollUntil(
    async () => (await serviceContainers(serviceId)).filter((c) => c.Names[0] === `/${paths.containerName}`),
    (cs) => cs.length === 1,
    { timeoutMs: 10_000, what: "the session's one container" },
  );
  expect(deadIds.has(own[0]?.Id ?? "")).toBe(false);
  // The workspace is the session's own volume on the host too.
  await pollUntil(
    () => readFile(join(paths.workspaceDir, "f"), "utf8").catch(() => ""),
    (text) => text === "kept\n",
    { timeoutMs: 10_000, what: "the workspace at its host path" },
  );

  await next.provider.close();
  const mounts = await readFile("/proc/mounts", "utf8");
  expect(mounts.split("\n").filter((l) => l.includes(dataDir))).toEqual([]);
}, 120_000);
