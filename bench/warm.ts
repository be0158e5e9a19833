/**
 * `npm run bench -- warm [n=8]`: a new session's first result with a warm container ready, over
 * HTTP (create, then the first call with wait), split into its two requests, next to a warm call
 * in a live session and a raw hardened `docker run --rm … true`, all measured in the same run;
 * then the sandbox alone (a warm claim + first `true`, no HTTP). One API+worker in this process
 * (`serve`), `SANDBOX_WARM_POOL=2`; the pool is refilled before each sample.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import Dockerode from "dockerode";
import { startService } from "../src/cli/compose.js";
import type { DockerSandboxProvider } from "../src/sandbox/docker-provider.js";
import { fmt, measureRawDockerRun, summarize } from "./sandbox-latency.js";
import { benchConfig, benchTenant, jsonClient, tearDown } from "./support.js";

const ADMIN = `bench-admin-${randomBytes(8).toString("hex")}`;

export async function run(args: string[]): Promise<void> {
  const n = Number(args[0] ?? 8);
  const dataDir = mkdtempSync(join(tmpdir(), "tsw-"));
  const config = benchConfig(dataDir, ADMIN, { SANDBOX_WARM_POOL: "2" });
  const service = await startService(config, "serve");
  const provider = service.deps.sandboxes as DockerSandboxProvider;
  const req = jsonClient(service.url!);
  const refilled = async () => {
    for (let i = 0; i < 600 && provider.warmReady < 2; i++) await new Promise((r) => setTimeout(r, 100));
    // Let the refill's own work (mkfs of spares, container start) settle before the next sample.
    await new Promise((r) => setTimeout(r, 1500));
  };
  try {
    console.log(
      `load average at start: ${loadavg()
        .map((l) => l.toFixed(2))
        .join(" ")}`,
    );
    const { tenantId, agent, newSession } = await benchTenant(req, ADMIN, ["Bash"]);
    let failures = 0;
    const call = async (sid: string) => {
      const { job } = await req("POST", `/v1/sessions/${sid}/calls?wait=60`, agent, {
        tool: "Bash",
        input: { command: "true" },
      });
      if (job.status !== "succeeded") failures++;
    };
    // Code paths and per-tenant caches warmed: the figure is per session, not per process.
    const live = await newSession();
    for (let i = 0; i < 10; i++) await call(live);
    const create: number[] = [];
    const first: number[] = [];
    const total: number[] = [];
    for (let i = 0; i < n; i++) {
      await refilled();
      const t0 = performance.now();
      const sid = await newSession();
      const t1 = performance.now();
      await call(sid);
      const t2 = performance.now();
      create.push(t1 - t0);
      first.push(t2 - t1);
      total.push(t2 - t0);
    }
    const warmCall: number[] = [];
    for (let i = 0; i < 20; i++) {
      const t0 = performance.now();
      await call(live);
      warmCall.push(performance.now() - t0);
    }
    const claim: number[] = [];
    const acquireOnly: number[] = [];
    const firstExec: number[] = [];
    const secondExec: number[] = [];
    const skills = await service.deps.skillFiles.tenantDir(tenantId);
    const execTrue = { argv: ["true"], timeoutMs: 10_000, maxOutputBytes: 1024 };
    for (let i = 0; i < n; i++) {
      await refilled();
      const t0 = performance.now();
      const sb = await provider.acquire({
        sessionId: `ses_bw${i}`,
        tenantId: tenantId,
        readOnlyMounts: [{ hostPath: skills, containerPath: "/skills" }],
      });
      const t1 = performance.now();
      await sb.exec(execTrue);
      const t2 = performance.now();
      await sb.exec(execTrue);
      secondExec.push(performance.now() - t2);
      claim.push(t2 - t0);
      acquireOnly.push(t1 - t0);
      firstExec.push(t2 - t1);
    }
    const rawRun = await measureRawDockerRun(new Dockerode(), config.SANDBOX_IMAGE, n, join(dataDir, "raw"));
    const cold = summarize(total);
    console.log(`POST /v1/sessions                            ${fmt(summarize(create))}`);
    console.log(`first call of the new session (wait)         ${fmt(summarize(first))}`);
    console.log(`cold session: create → first result          ${fmt(cold)}`);
    console.log(`warm call in a live session (wait)           ${fmt(summarize(warmCall))}`);
    console.log(`sandbox only: warm claim + first exec        ${fmt(summarize(claim))}`);
    console.log(`  of which acquire() (the claim)             ${fmt(summarize(acquireOnly))}`);
    console.log(`  of which the first exec (true)             ${fmt(summarize(firstExec))}`);
    console.log(`  a second exec (true) in that session       ${fmt(summarize(secondExec))}`);
    console.log(`raw hardened docker run … true               ${fmt(rawRun)}`);
    console.log(`cold start p50 / raw docker run p50 = ${(cold.p50 / rawRun.p50).toFixed(2)} (aim ≤ 0.2)`);
    console.log(
      `failed calls: ${failures}; load average at end: ${loadavg()
        .map((l) => l.toFixed(2))
        .join(" ")}`,
    );
  } finally {
    await tearDown(service, config, dataDir);
  }
}
