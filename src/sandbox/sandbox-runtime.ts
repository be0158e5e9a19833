import type Dockerode from "dockerode";
import { SandboxUnavailableError } from "./sandbox.js";

// gVisor's ptrace platform runs each guest process on host stub processes and sentry threads,
// all in the container's pids cgroup: measured ~10 host tasks per guest process, ~60 at rest.
// Hitting the cgroup limit panics the sentry (the whole sandbox exits), so leave room.
const RUNSC_TASKS_PER_PID = 8;

/** The pids-cgroup limit for `pids` agent processes under `runtime`. */
export function hostPidsLimit(pids: number, runtime: string | undefined): number {
  return runtime === "runsc" ? pids * RUNSC_TASKS_PER_PID : pids;
}

/** Whether the Docker engine lists `runtime` (e.g. "runsc") among its OCI runtimes. */
export async function runtimeRegistered(docker: Dockerode, runtime: string): Promise<boolean> {
  const info = (await docker.info()) as { Runtimes?: Record<string, unknown> };
  return info.Runtimes?.[runtime] !== undefined;
}

/**
 * Checks once per process that the engine knows the configured runtime, so a missing
 * registration fails with its fix instead of Docker's bare "Unknown runtime specified".
 */
export class RuntimeCheck {
  private checked?: Promise<void>;

  constructor(
    private readonly docker: Dockerode,
    private readonly runtime: string | undefined,
  ) {}

  ensure(): Promise<void> {
    const runtime = this.runtime;
    if (runtime === undefined || runtime === "runc") return Promise.resolve();
    this.checked ??= runtimeRegistered(this.docker, runtime)
      .then((known) => {
        if (!known)
          throw new SandboxUnavailableError(
            `sandbox runtime ${runtime} is not registered with the Docker engine: run scripts/register-runsc.sh as root`,
          );
      })
      .catch((err: unknown) => {
        // Not cached: the next call looks again (the operator may have registered it since).
        this.checked = undefined;
        throw err;
      });
    return this.checked;
  }
}
