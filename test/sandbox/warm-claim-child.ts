/**
 * A worker that claims a warm sandbox and is then SIGKILLed by warm-pool-crash.int.test.ts: it
 * starts a provider (WARM_SERVICE_ID, WARM_DATA_DIR), waits for its pool, claims a container for
 * WARM_SESSION and starts a long command that writes to /workspace. The claim's rename and host
 * view wait until a request ends, so the process dies between claim and rename. Prints a line
 * once the file is written.
 */
import { DockerSandboxProvider } from "../../src/sandbox/docker-provider.js";
import { docker, TEST_IMAGE } from "./harness.js";

const env = (k: string) => process.env[k] ?? "";
const provider = new DockerSandboxProvider({
  docker,
  dataDir: env("WARM_DATA_DIR"),
  serviceId: env("WARM_SERVICE_ID"),
  image: TEST_IMAGE,
  limits: { memoryBytes: 256 * 1024 * 1024, pids: 128, nanoCpus: 1_000_000_000 },
  idleStopMs: 10 * 60_000,
  warmPool: 2,
  workspaceQuota: { diskBytes: 16 * 1024 * 1024, inodes: 1000 },
});
while (provider.warmReady < 2) await new Promise((r) => setTimeout(r, 100));
const sb = await provider.acquire({ sessionId: env("WARM_SESSION"), tenantId: "ten_crash" });
void sb.exec({
  argv: ["bash", "-c", "echo kept > /workspace/f && sync && echo written && sleep 600"],
  timeoutMs: 700_000,
  maxOutputBytes: 1024,
  onOutput: (_stream, data) => {
    if (data.includes("written")) process.stdout.write("claimed\n");
  },
});
await new Promise(() => {});
