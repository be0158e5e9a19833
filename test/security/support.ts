/**
 * Shared set-up of the containment suite: the container runtimes to run under, one real harness
 * per runtime, and an attacker (a tenant with rules, an agent session, calls through the real API).
 */
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, expect, onTestFinished } from "vitest";
import { jobText } from "../mcp/support.js";
import { type Harness, seedTenant, startHarness } from "../support/harness.js";
import { waitForJob } from "../support/wait-for-job.js";

export { jobText };

function runscRegistered(): boolean {
  try {
    const runtimes = execFileSync("docker", ["info", "--format", "{{json .Runtimes}}"], {
      encoding: "utf8",
      timeout: 30_000,
    });
    return runtimes.includes("runsc");
  } catch {
    return false;
  }
}

/** runc always; gVisor too when the engine has it registered (CI installs it). */
export const runtimes = ["runc", ...(runscRegistered() ? ["runsc"] : [])];

/**
 * Starts one harness for the enclosing describe block, with its sandboxes under `runtime`;
 * the getter throws until it is up.
 */
export function harnessFor(runtime: string, env: Record<string, string> = {}): () => Harness {
  let h: Harness | undefined;
  beforeAll(async () => {
    h = await startHarness({ env: { SANDBOX_RUNTIME: runtime, ...env } });
  });
  afterAll(async () => {
    await h?.stop();
  });
  return () => {
    if (!h) throw new Error("the harness did not start");
    return h;
  };
}

export interface Rules {
  allow?: string[];
  deny?: string[];
  ask?: string[];
}

/** The parts of the API's job the suite reads. */
export interface Job {
  id: string;
  status: string;
  decision: { behavior: string; rule?: string; message?: string };
  result?: {
    content: { type: string; text?: string }[];
    state: string;
    exitCode?: number | null;
    metadata?: Record<string, unknown>;
  };
}

/** An HTTP answer to a submitted call: a refusal (4xx) carries no job. */
export interface CallAnswer {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: tests assert on JSON bodies freely
  body: any;
  job?: Job;
}

/** Queued and running jobs still move; anything else is final for the suite's purposes. */
export const isFinal = (status: string) => status !== "queued" && status !== "running";

/** The source of one of the attack programs in ./scripts/. */
export const attackScript = (name: string) =>
  readFileSync(new URL(`./scripts/${name}`, import.meta.url), "utf8");

/** A random tag, so that a string in an answer can only have come from this test. */
export const nonce = () => randomBytes(6).toString("hex");

/** A tenant with the given rules and one agent session, seen from the agent's side. */
export class Attacker {
  constructor(
    readonly h: Harness,
    readonly tenantId: string,
    readonly agentKey: string,
    readonly adminKey: string,
    readonly sid: string,
  ) {}

  /** POST …/calls (optionally waiting up to `wait` s); the raw answer. */
  async submit(tool: string, input: Record<string, unknown>, wait = 0): Promise<CallAnswer> {
    const res = await this.h.call("POST", `/v1/sessions/${this.sid}/calls?wait=${wait}`, {
      key: this.agentKey,
      body: { tool, input },
    });
    return { ...res, ...(res.body?.job ? { job: res.body.job as Job } : {}) };
  }

  /** Submits with `?wait=60`, then reads the job until it is final; a refusal comes back as is. */
  async tryCall(tool: string, input: Record<string, unknown>): Promise<CallAnswer> {
    const res = await this.submit(tool, input, 60);
    if (!res.job || isFinal(res.job.status)) return res;
    return { ...res, job: await this.waitFinal(res.job.id) };
  }

  /** A call that the API must accept: its final job. */
  async callAndWait(tool: string, input: Record<string, unknown>): Promise<Job> {
    const res = await this.tryCall(tool, input);
    expect([200, 202], JSON.stringify(res.body)).toContain(res.status);
    return res.job!;
  }

  /** A Bash call the rules allow: its final job and the result's text. */
  async bash(command: string, extra: Record<string, unknown> = {}): Promise<{ job: Job; out: string }> {
    const job = await this.callAndWait("Bash", { command, ...extra });
    expect(job.decision.behavior, `not allowed to run: ${command}`).toBe("allow");
    return { job, out: jobText(job) };
  }

  /** Writes `source` to a new file in the workspace (needs Write allowed); its path. */
  async writeScript(source: string, ext = "sh"): Promise<string> {
    const file = `/workspace/attack-${nonce()}.${ext}`;
    const w = await this.callAndWait("Write", { file_path: file, content: source });
    expect(w.status, JSON.stringify(w)).toBe("succeeded");
    return file;
  }

  /**
   * Runs `source` with `interpreter` from a file: a loop cannot be analysed by the policy, a
   * script can be allowed by rule. Needs Write and Bash allowed.
   */
  async script(source: string, interpreter = "bash", extra: Record<string, unknown> = {}) {
    const file = await this.writeScript(source, interpreter === "python3" ? "py" : "sh");
    return this.bash(`${interpreter} ${file}`, extra);
  }

  /** Reads the job until it is final, for at most `timeoutMs`. */
  async waitFinal(jobId: string, timeoutMs = 120_000): Promise<Job> {
    return (await waitForJob(this.h.call, this.agentKey, jobId, { timeoutMs })) as Job;
  }

  /** Follows the job's event stream until its output shows `marker` (the command reached a point). */
  async waitForOutput(jobId: string, marker: string, timeoutMs = 60_000): Promise<void> {
    const res = await fetch(`${this.h.url}/v1/jobs/${jobId}/events`, {
      headers: { authorization: `Bearer ${this.agentKey}` },
      signal: AbortSignal.timeout(timeoutMs),
    });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let seen = "";
    try {
      while (!seen.includes(marker)) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`job ${jobId} ended before its output showed ${marker}: ${seen}`);
        seen += decoder.decode(value, { stream: true });
      }
    } finally {
      await reader.cancel().catch(() => undefined);
    }
  }

  async setRules(rules: Rules): Promise<void> {
    const res = await this.h.call("PUT", `/v1/tenants/${this.tenantId}/rules`, {
      key: this.adminKey,
      body: { allow: [], deny: [], ask: [], ...rules },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  }

  /** Ends the session (its container and workspace go with it). */
  async close(): Promise<void> {
    await this.h.call("DELETE", `/v1/sessions/${this.sid}`, { key: this.agentKey });
  }
}

/**
 * A new tenant with `rules` and a new session of it. Call it inside a test: the session is
 * deleted when the test finishes, so every test starts on an empty workspace (`kept`: the caller
 * deletes it, as sharedAttackers does).
 */
export async function newAttacker(
  h: Harness,
  rules: Rules,
  opts: { kept?: boolean } = {},
): Promise<Attacker> {
  const t = await seedTenant(h.call, `sec-${nonce()}`);
  const s = await h.call("POST", "/v1/sessions", { key: t.agentKey, body: {} });
  expect(s.status, JSON.stringify(s.body)).toBe(201);
  const a = new Attacker(h, t.tenantId, t.agentKey, t.adminKey, s.body.id);
  if (!opts.kept) onTestFinished(() => a.close());
  await a.setRules(rules);
  return a;
}

/**
 * One prepared attacker per `key` for all the tests of a describe (made by the first test that
 * asks, its session deleted after the last): for tests whose commands leave the session as they
 * found it unless the attack works, in which case its traces fail the later tests too. Saves a
 * session and its preparation per test (~1.5 s each under gVisor).
 */
export function sharedAttackers(
  h: () => Harness,
): (key: string, prepare: (h: Harness) => Promise<Attacker>) => Promise<Attacker> {
  const made = new Map<string, Promise<Attacker>>();
  afterAll(async () => {
    for (const a of made.values()) await (await a.catch(() => undefined))?.close().catch(() => undefined);
  });
  return (key, prepare) => {
    let a = made.get(key);
    if (!a) {
      a = prepare(h());
      made.set(key, a);
    }
    return a;
  };
}

/** The files matching `pattern` under `dir`, listed by Glob (the rules must allow it); "" for none. */
export async function globFinds(a: Attacker, pattern: string, dir = "/workspace"): Promise<string> {
  const job = await a.callAndWait("Glob", { pattern, path: dir });
  expect(job.status, `Glob: ${JSON.stringify(job)}`).toBe("succeeded");
  return jobText(job).startsWith("No files found") ? "" : jobText(job);
}
