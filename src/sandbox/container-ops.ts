import type Dockerode from "dockerode";
import {
  buildContainerSpec,
  type ContainerSpecInput,
  LABEL_HARDENING,
  LABEL_SERVICE,
  LABEL_TENANT,
} from "./container-spec.js";
import { HARDENING_DIGEST } from "./host-kernel-limits.js";
import { SandboxUnavailableError } from "./sandbox.js";
import { LABEL_UID_SLOT } from "./uid-slots.js";

function statusOf(err: unknown): number | undefined {
  return (err as { statusCode?: number } | null)?.statusCode;
}

async function inspectOrNull(c: Dockerode.Container): Promise<Dockerode.ContainerInspectInfo | null> {
  try {
    return await c.inspect();
  } catch (err) {
    if (statusOf(err) === 404) return null;
    throw err;
  }
}

/**
 * Makes the session's container run: starts a stopped one, creates a missing one, and recreates a
 * stopped one whose image, runtime, kernel hardening or uid slot is no longer the configured one. Refuses a container of another service or tenant.
 */
export async function ensureContainerRunning(docker: Dockerode, input: ContainerSpecInput): Promise<void> {
  const container = docker.getContainer(input.name);
  let info = await inspectOrNull(container);
  if (info) {
    const labels = info.Config.Labels ?? {};
    if (labels[LABEL_SERVICE] !== input.serviceId || labels[LABEL_TENANT] !== input.tenantId) {
      throw new SandboxUnavailableError(`container ${input.name} belongs to another service or tenant`);
    }
    if (!info.State.Running) {
      const imageId = (await docker.getImage(input.image).inspect()).Id;
      const otherRuntime = input.runtime !== undefined && info.HostConfig.Runtime !== input.runtime;
      const otherHardening = labels[LABEL_HARDENING] !== HARDENING_DIGEST;
      // Its tmpfs owners and account files name its uid range: another range is another container.
      const otherSlot = labels[LABEL_UID_SLOT] !== input.uidSlot?.toString();
      if (info.Image !== imageId || otherRuntime || otherHardening || otherSlot) {
        await container.remove({ force: true, v: true });
        info = null;
      }
    }
  }
  if (!info) {
    try {
      await docker.createContainer(buildContainerSpec(input));
    } catch (err) {
      // 409: another acquire (maybe another process) created it first; starting it is enough.
      if (statusOf(err) !== 409) throw err;
    }
  }
  if (!info?.State.Running) {
    try {
      await container.start();
    } catch (err) {
      if (statusOf(err) !== 304) throw err;
    }
  }
}

/** A container's labels and whether it runs; null when there is none of that name. */
export async function containerState(
  docker: Dockerode,
  name: string,
): Promise<{ running: boolean; labels: Record<string, string> } | null> {
  const info = await inspectOrNull(docker.getContainer(name));
  return info && { running: info.State.Running, labels: info.Config.Labels ?? {} };
}

/** Whether a container of that name exists (running or not). */
export async function containerExists(docker: Dockerode, name: string): Promise<boolean> {
  return (await inspectOrNull(docker.getContainer(name))) !== null;
}

/** Stops a container; already stopped or gone is fine. */
export async function stopContainer(docker: Dockerode, name: string, graceSeconds: number): Promise<void> {
  try {
    await docker.getContainer(name).stop({ t: graceSeconds });
  } catch (err) {
    if (statusOf(err) !== 304 && statusOf(err) !== 404) throw err;
  }
}

/** How long a removal waits out the engine's 409 (another request on the container still in progress). */
const REMOVE_CONFLICT_MS = 10_000;

/**
 * Removes the container (running or not); resolves once it is gone. A 409 means another request
 * on it is still being served: a removal already in progress, or the create or start of a process
 * that died meanwhile (the engine finishes it). It is tried again until gone, for a bounded time,
 * so that a caller's "removed" means removed.
 */
export async function removeContainer(docker: Dockerode, name: string): Promise<void> {
  const until = Date.now() + REMOVE_CONFLICT_MS;
  for (;;) {
    try {
      await docker.getContainer(name).remove({ force: true, v: true });
      return;
    } catch (err) {
      if (statusOf(err) === 404) return;
      if (statusOf(err) !== 409) throw err;
      if (Date.now() >= until) return;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

/** Every container (running or not) labelled with this service's id. */
export function listServiceContainers(
  docker: Dockerode,
  serviceId: string,
): Promise<Dockerode.ContainerInfo[]> {
  return docker.listContainers({ all: true, filters: { label: [`${LABEL_SERVICE}=${serviceId}`] } });
}
