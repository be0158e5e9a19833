/**
 * A test file's service with the API in-process and workers as separate OS processes (so a test
 * can SIGKILL one mid-job); every child still alive is killed and the harness stopped afterwards.
 */
import type { ChildProcess } from "node:child_process";
import { afterAll, beforeAll } from "vitest";
import { type Harness, spawnWorkerProcess, startHarness } from "./harness.js";

export interface ChildWorkerFixture {
  readonly h: Harness;
  spawnWorker(): ChildProcess;
}

export function apiWithChildWorkers(): ChildWorkerFixture {
  let harness: Harness | undefined;
  const children: ChildProcess[] = [];
  beforeAll(async () => {
    harness = await startHarness({ mode: "api" });
  });
  afterAll(async () => {
    for (const c of children) if (c.exitCode === null) c.kill("SIGKILL");
    await harness?.stop();
  });
  return {
    get h() {
      if (!harness) throw new Error("the harness is not started yet");
      return harness;
    },
    spawnWorker() {
      const c = spawnWorkerProcess(this.h);
      children.push(c);
      return c;
    },
  };
}
