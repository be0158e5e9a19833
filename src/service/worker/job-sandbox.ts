/**
 * The sandbox a job's tools see: acquired on first use, every operation keyed `<jobId>:<n>` so
 * that a worker taking the job over re-attaches instead of running anything twice, and the
 * executor instance recorded on the job's attempt the first time it is used.
 */
import { AttemptSupersededError } from "../../errors.js";
import { type Sandbox, SandboxUnavailableError } from "../../sandbox/sandbox.js";

export interface JobSandboxOptions {
  jobId: string;
  sessionId: string;
  acquire: () => Promise<Sandbox>;
  /**
   * Called once with the executor instance, before the first operation is sent; false: the
   * attempt was superseded, and every operation throws AttemptSupersededError instead.
   */
  onInstance: (instance: string) => boolean | undefined | Promise<boolean | undefined>;
  /**
   * Ask the instance through a round trip (a takeover, where it decides what runs) rather than
   * take the last one that proved itself (a stale id there only makes a later takeover careful).
   */
  liveInstance: boolean;
  /** Reports SandboxUnavailableError even when a tool swallows it. */
  onUnavailable: (err: SandboxUnavailableError) => void;
  /** Reports AttemptSupersededError even when a tool swallows it. */
  onSuperseded?: (err: AttemptSupersededError) => void;
}

/** The job's sandbox plus what the worker needs after the tool ran. */
export interface JobSandbox {
  sandbox: Sandbox;
  /** The acquired sandbox, if any tool used it. */
  used(): Sandbox | undefined;
}

export function jobSandbox(opts: JobSandboxOptions): JobSandbox {
  let acquired: Promise<Sandbox> | undefined;
  let ready: Sandbox | undefined;
  let n = 0;
  const key = () => `${opts.jobId}:${n++}`;
  const open = async (): Promise<Sandbox> => {
    const sb = await opts.acquire();
    if (sb.instanceId && (await opts.onInstance(await sb.instanceId({ live: opts.liveInstance }))) === false)
      throw new AttemptSupersededError(opts.jobId);
    ready = sb;
    return sb;
  };
  const use = async <T>(fn: (sb: Sandbox) => Promise<T>): Promise<T> => {
    try {
      acquired ??= open();
      return await fn(await acquired);
    } catch (err) {
      if (err instanceof SandboxUnavailableError) opts.onUnavailable(err);
      if (err instanceof AttemptSupersededError) opts.onSuperseded?.(err);
      throw err;
    }
  };
  const sandbox: Sandbox = {
    sessionId: opts.sessionId,
    exec: (req) => {
      const callKey = req.callKey ?? key();
      return use((sb) => sb.exec({ ...req, callKey }));
    },
    readFile: (path, o) => {
      const callKey = key();
      return use((sb) => sb.readFile(path, { ...o, callKey }));
    },
    writeFile: (path, data) => {
      const callKey = key();
      return use((sb) => sb.writeFile(path, data, { callKey }));
    },
    stat: (path) => {
      const callKey = key();
      return use((sb) => sb.stat(path, { callKey }));
    },
    realPath: (path) => {
      const callKey = key();
      return use((sb) => sb.realPath(path, { callKey }));
    },
    spawnProcess: (req) =>
      use(async (sb) => {
        if (!sb.spawnProcess) throw new Error("This sandbox cannot start long-lived processes.");
        return sb.spawnProcess(req);
      }),
    instanceId: (o) => use(async (sb) => (sb.instanceId ? sb.instanceId(o) : "unknown")),
  };
  return { sandbox, used: () => ready };
}
