/**
 * removeContainer's contract: resolves once the container is gone. The engine answers 409 while
 * another request on the container is still being served (a removal in progress, or the create or
 * start of a process that died meanwhile); the removal is tried again rather than reported done.
 */
import type Dockerode from "dockerode";
import { expect, it } from "vitest";
import { removeContainer } from "../../src/sandbox/container-ops.js";

/** An engine whose remove answers each status in turn (then 404: gone). */
function engine(statuses: (number | "ok")[]) {
  const calls: string[] = [];
  const docker = {
    getContainer: (name: string) => ({
      remove: async () => {
        calls.push(name);
        const next = statuses.shift() ?? 404;
        if (next === "ok") return;
        throw Object.assign(new Error(`status ${next}`), { statusCode: next });
      },
    }),
  } as unknown as Dockerode;
  return { docker, calls };
}

it("tries again while the engine answers 409, until the removal is done", async () => {
  const { docker, calls } = engine([409, 409, "ok"]);
  await removeContainer(docker, "c1");
  expect(calls).toEqual(["c1", "c1", "c1"]);
});

it("takes a 404 (already gone) as done, and passes any other error on", async () => {
  const gone = engine([404]);
  await removeContainer(gone.docker, "c2");
  expect(gone.calls).toEqual(["c2"]);
  await expect(removeContainer(engine([500]).docker, "c3")).rejects.toThrow("status 500");
});
