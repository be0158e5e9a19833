/** Helpers the service benches share. */

import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import { constants } from "node:os";
import Dockerode from "dockerode";
import { Redis } from "ioredis";
import type { RunningService } from "../src/cli/compose.js";
import { type Config, loadConfig } from "../src/config.js";
import { readMounts } from "../src/sandbox/mount-table.js";

/**
 * A bench service's configuration: its own data folder, queue prefix and service id (so a run
 * removes only what it made), the image a checkout names, and `extra` on top.
 */
export function benchConfig(dataDir: string, adminKey: string, extra: Record<string, string> = {}): Config {
  const config = loadConfig({
    PORT: "0",
    DATA_DIR: dataDir,
    TOOLSHED_ADMIN_KEY: adminKey,
    LOG_LEVEL: "warn",
    QUEUE_PREFIX: `bench-${randomBytes(4).toString("hex")}`,
    SERVICE_ID: `toolshed-bench-${randomBytes(3).toString("hex")}`,
    // Several checkouts share one engine: a run may name its own build of the image.
    ...(process.env.SANDBOX_IMAGE ? { SANDBOX_IMAGE: process.env.SANDBOX_IMAGE } : {}),
    ...extra,
  });
  removedOnSignal(config, dataDir);
  return config;
}

/**
 * What each bench service not torn down yet would leave behind. A bench stopped by a signal (a
 * `timeout`, ^C) runs no `finally`: its containers stayed up, idle, taking memory and skewing the
 * next runs' figures. On SIGINT or SIGTERM, or a closed stdout (EPIPE: `| head`), they are removed
 * (for at most 30 s), then the process exits as the signal would have ended it.
 */
const leftBehind = new Map<string, () => Promise<void>>();
let hooked = false;

/** Registers a run's service (its containers on `engines`, data, Redis keys) for removal on a signal. */
export function removedOnSignal(
  config: Config,
  dataDir: string,
  engines: Dockerode[] = [new Dockerode()],
): void {
  if (!hooked) {
    hooked = true;
    let ending = false;
    const onSignal = (signal: NodeJS.Signals) => {
      if (ending) return;
      ending = true;
      console.error(`bench: ${signal}; removing the containers, data and Redis keys it made`);
      const removed = Promise.allSettled([...leftBehind.values()].map((remove) => remove()));
      const bound = new Promise((resolve) => setTimeout(resolve, 30_000).unref());
      void Promise.race([removed, bound]).finally(() => process.exit(128 + constants.signals[signal]));
    };
    process.once("SIGINT", onSignal);
    process.once("SIGTERM", onSignal);
    // A reader that stops early (`| head`) closes the pipe: the next print failed with EPIPE,
    // uncaught, and the bench ended without removing anything (as a signal would have ended it).
    process.stdout.on("error", (err: NodeJS.ErrnoException) => {
      if (err.code === "EPIPE") onSignal("SIGPIPE");
    });
  }
  leftBehind.set(config.SERVICE_ID, () => removeLeft(config, dataDir, engines));
}

/**
 * A run's containers on each engine (twice: one being made while the first pass listed them; an
 * engine that does not answer is skipped), data and Redis keys.
 */
async function removeLeft(config: Config, dataDir: string, engines: Dockerode[]): Promise<void> {
  const label = `toolshed.service=${config.SERVICE_ID}`;
  for (const docker of engines) {
    for (let pass = 0; pass < 2; pass++) {
      const left = await docker.listContainers({ all: true, filters: { label: [label] } }).catch(() => []);
      await Promise.allSettled(left.map((c) => docker.getContainer(c.Id).remove({ force: true })));
    }
  }
  await unmountUnder(dataDir);
  rmSync(dataDir, { recursive: true, force: true });
  await dropKeys(config.REDIS_URL, config.QUEUE_PREFIX);
}

/**
 * The run's workspace volumes still mounted under its data folder (sessions' and the warm pool's:
 * a stopped service keeps them for its next start, which a bench never makes). Unmounted (lazily:
 * a container being removed may still hold one) so that their loop devices go with them; else
 * every bench run left its loop devices attached and its deleted images' space held.
 */
async function unmountUnder(dataDir: string): Promise<void> {
  const under = (await readMounts().catch(() => []))
    .map((m) => m.mountPoint)
    .filter((p) => p.startsWith(`${dataDir}/`))
    .sort((a, b) => b.length - a.length);
  for (const p of under) {
    try {
      execFileSync("umount", ["-l", p], { stdio: "ignore" });
    } catch {
      // Not ours to unmount (no root): nothing was mounted by a run without workspace quotas.
    }
  }
}

/** Redis is shared: remove one run's queues (`{prefix}:`), streams and counters (`prefix:`). */
export async function dropKeys(url: string, prefix: string): Promise<void> {
  const redis = new Redis(url);
  for (const pattern of [`${prefix}:*`, `{${prefix}}:*`]) {
    let cursor = "0";
    do {
      const [next, keys] = await redis.scan(cursor, "MATCH", pattern, "COUNT", 1000);
      cursor = next;
      if (keys.length > 0) await redis.del(...keys);
    } while (cursor !== "0");
  }
  redis.disconnect();
}

/** Stops the bench's service and removes everything it left: its containers, data and Redis keys. */
export async function tearDown(
  service: RunningService,
  config: Config,
  dataDir: string,
  engines: Dockerode[] = [new Dockerode()],
): Promise<void> {
  await service.stop();
  await removeLeft(config, dataDir, engines);
  leftBehind.delete(config.SERVICE_ID);
}

/** A loose JSON client for a bench: any answer above 299 but 202 throws with its body. */
export function jsonClient(base: string) {
  return async (method: string, path: string, key?: string, body?: unknown) => {
    const res = await fetch(base + path, {
      method,
      headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    // biome-ignore lint/suspicious/noExplicitAny: bench reads loosely typed JSON bodies
    const json = (await res.json()) as Record<string, any>;
    if (res.status >= 300 && res.status !== 202)
      throw new Error(`${method} ${path}: ${JSON.stringify(json)}`);
    return json;
  };
}

/**
 * A bench tenant: created with the admin key, an agent key, rules that allow `tools`; returns the
 * tenant's id, the agent key and a way to open sessions with it.
 */
export async function benchTenant(
  req: ReturnType<typeof jsonClient>,
  adminKey: string,
  tools: string[],
): Promise<{ tenantId: string; agent: string; newSession: () => Promise<string> }> {
  const tenant = await req("POST", "/v1/tenants", adminKey, { name: "bench" });
  const agent = (await req("POST", `/v1/tenants/${tenant.id}/keys`, adminKey, { role: "agent" }))
    .key as string;
  await req("PUT", `/v1/tenants/${tenant.id}/rules`, adminKey, { allow: tools, deny: [], ask: [] });
  const newSession = async () => (await req("POST", "/v1/sessions", agent, {})).id as string;
  return { tenantId: tenant.id as string, agent, newSession };
}
