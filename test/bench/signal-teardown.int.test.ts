/**
 * A bench stopped by a signal (`timeout`, ^C) runs no `finally`: bench/support.ts removes what
 * its services made (containers, data) on SIGTERM and SIGINT, and when its stdout's reader is gone
 * (EPIPE), then exits as the signal would have.
 */
// suite: parallel — the containers it counts are those of the bench's own service id
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { createInterface } from "node:readline";
import Dockerode from "dockerode";
import { expect, it } from "vitest";

const docker = new Dockerode();
const labelled = (service: string) =>
  docker.listContainers({ all: true, filters: { label: [`toolshed.service=${service}`] } });

it.each([
  ["SIGTERM", 143],
  ["SIGINT", 130],
] as const)(
  "a bench's containers and data are removed when it gets %s",
  async (signal, code) => {
    const child = spawn(process.execPath, ["--import", "tsx", "test/bench/fixtures/signalled-bench.ts"], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    const exited = new Promise<number | null>((resolve) => child.once("exit", (c) => resolve(c)));
    const first = await new Promise<string>((resolve) =>
      createInterface({ input: child.stdout! }).once("line", resolve),
    );
    const { service, dataDir } = JSON.parse(first) as { service: string; dataDir: string };
    try {
      expect(await labelled(service)).toHaveLength(1);
      expect(existsSync(dataDir)).toBe(true);
      child.kill(signal);
      expect(await exited).toBe(code);
      expect(await labelled(service)).toHaveLength(0);
      expect(existsSync(dataDir)).toBe(false);
    } finally {
      for (const c of await labelled(service)) await docker.getContainer(c.Id).remove({ force: true });
    }
  },
  60_000,
);

it("a bench's containers and data are removed when its reader stops reading (`| head`)", async () => {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", "test/bench/fixtures/signalled-bench.ts", "--print"],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  const exited = new Promise<number | null>((resolve) => child.once("exit", (c) => resolve(c)));
  const lines = createInterface({ input: child.stdout! });
  const first = await new Promise<string>((resolve) => lines.once("line", resolve));
  const { service, dataDir } = JSON.parse(first) as { service: string; dataDir: string };
  try {
    expect(await labelled(service)).toHaveLength(1);
    // The reader goes, as `head -1` does after its line: the bench's next print meets a closed pipe.
    lines.close();
    child.stdout!.destroy();
    expect(await exited).toBe(141);
    expect(await labelled(service)).toHaveLength(0);
    expect(existsSync(dataDir)).toBe(false);
  } finally {
    for (const c of await labelled(service)) await docker.getContainer(c.Id).remove({ force: true });
  }
}, 60_000);
