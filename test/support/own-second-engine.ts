/**
 * Two worker hosts on one machine for a test file that freezes or pauses them: a second Docker
 * engine in a directory of the file's own (`scripts/cluster.sh engine-up`, so the cluster test's
 * and the machine's engines are left alone), workers as child processes each on its own sandbox
 * directory (and, on Postgres, its own DATA_DIR, as separate machines), and, after the file, the
 * processes thawed, this run's containers on that engine removed and the engine stopped.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll } from "vitest";
import type { ChildService } from "./child-service.js";
import { apiWithChildWorkers, type ChildWorkerFixture } from "./child-workers.js";

export interface TwoHosts {
  readonly f: ChildWorkerFixture;
  /** The second engine's DOCKER_HOST. */
  readonly engine2: string;
  /** The second dockerd's pid (a test may freeze it). */
  readonly dockerd2: number;
  /** The workers started so far, in order. */
  readonly workers: ChildService[];
  /** A worker on the second engine (`engine2`) or the machine's (`undefined`). */
  worker(name: string, dockerHost: string | undefined): Promise<ChildService>;
}

/** Call at module scope (it registers the file's hooks); `env` goes to every process. */
export function twoHosts(clusterDir: string, env: Record<string, string>): TwoHosts {
  const engine = (verb: "engine-up" | "engine-down") =>
    execFileSync("bash", ["scripts/cluster.sh", verb], {
      stdio: "inherit",
      env: { ...process.env, CLUSTER_DIR: clusterDir },
      timeout: 180_000,
    });
  engine("engine-up");
  const image = readFileSync(join(clusterDir, "image"), "utf8").trim();
  const engine2 = `unix://${clusterDir}/e2/docker.sock`;
  const dockerd2 = Number(readFileSync(join(clusterDir, "e2", "docker.pid"), "utf8"));
  const f = apiWithChildWorkers({ env: { SANDBOX_IMAGE: image, SANDBOX_DISK_QUOTA: "off", ...env } });
  const workers: ChildService[] = [];
  afterAll(() => {
    process.kill(dockerd2, "SIGCONT");
    for (const w of workers) w.proc.kill("SIGCONT");
    // This run's containers on the second engine (the harness reaps the first engine's), then it.
    const label = `label=toolshed.service=${f.h.config.SERVICE_ID}`;
    const ids = execFileSync("docker", ["-H", engine2, "ps", "-aq", "--filter", label])
      .toString()
      .split("\n");
    const own = ids.filter(Boolean);
    if (own.length) execFileSync("docker", ["-H", engine2, "rm", "-f", ...own], { stdio: "ignore" });
    engine("engine-down");
  });
  return {
    f,
    engine2,
    dockerd2,
    workers,
    async worker(name, dockerHost) {
      const dir = f.h.config.DATA_DIR;
      const own = f.h.env.DATABASE_URL ? { DATA_DIR: join(dir, name) } : {};
      if (own.DATA_DIR) mkdirSync(own.DATA_DIR, { recursive: true });
      const w = await f.spawn("worker", {
        ...own,
        SANDBOX_DIR: join(dir, `sb-${name}`),
        DOCKER_HOST: dockerHost,
      });
      workers.push(w);
      return w;
    },
  };
}
