/**
 * A test file's service with the API in-process and workers and extra APIs as separate OS
 * processes (so a test can SIGKILL one mid-job); every child still alive is killed and the
 * harness stopped afterwards.
 */
import { afterAll, beforeAll } from "vitest";
import { type ChildService, startChild } from "./child-service.js";
import { type Harness, startHarness } from "./harness.js";

export interface ChildWorkerFixture {
  readonly h: Harness;
  /**
   * Starts `toolshed worker|api|serve` as a child on the harness's data and queue (plus `env`, e.g. a
   * worker's DOCKER_HOST); resolves once it listens.
   */
  spawn(mode: "worker" | "api" | "serve", env?: Record<string, string | undefined>): Promise<ChildService>;
}

export function apiWithChildWorkers(opts: { env?: Record<string, string> } = {}): ChildWorkerFixture {
  let harness: Harness | undefined;
  const children: ChildService[] = [];
  beforeAll(async () => {
    harness = await startHarness({ mode: "api", ...(opts.env ? { env: opts.env } : {}) });
  });
  afterAll(async () => {
    for (const c of children) await c.stop("SIGKILL");
    await harness?.stop();
  });
  return {
    get h() {
      if (!harness) throw new Error("the harness is not started yet");
      return harness;
    },
    async spawn(mode, env) {
      const c = await startChild(mode, this.h.env, env);
      children.push(c);
      return c;
    },
  };
}
