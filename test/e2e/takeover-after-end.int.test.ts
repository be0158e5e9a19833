/**
 * A second delivery of a call that takes it over after its first attempt's command ended but
 * before that attempt's finish (a BullMQ lock that lapsed under load, a reconciler or lost-host
 * re-queue: NOTES-twice31.md lists the paths) re-attaches in the same executor: the command ran
 * once. The first attempt's finish is refused (the job is the second's); it must not tell the
 * executor to forget the job's keys, or the second attempt's exec, which carries that ack, finds
 * nothing to re-attach to and runs the command again, silently (cluster test, round 16).
 *
 * Both attempts are driven here, in one API process that runs no worker, with the real store,
 * Docker sandbox and executor: the seam is the store's finish of attempt 1, which lets the
 * take-over claim in first.
 */
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { dockerProvider } from "../../src/cli/compose.js";
import { createLogger } from "../../src/log.js";
import type { DockerSandboxProvider } from "../../src/sandbox/docker-provider.js";
import type { Claim } from "../../src/service/worker/claim-job.js";
import { claimJob } from "../../src/service/worker/claim-job.js";
import { executeJob } from "../../src/service/worker/execute-job.js";
import { jobDeps } from "../../src/service/worker/job-deps.js";
import { type Harness, seedBashTenant, startHarness } from "../support/harness.js";
import { COUNTED, expectOneRunTakenOver, takeoverWindow } from "../support/takeover-window.js";

let h: Harness;
let docker: DockerSandboxProvider;

beforeAll(async () => {
  h = await startHarness({ mode: "api" });
  // The API process holds no Docker engine; the attempts driven here use this one.
  docker = dockerProvider(h.config, createLogger("silent"));
  h.service.deps.sandboxes = docker;
});
afterAll(async () => {
  await docker?.close();
  await h?.stop();
});

type Running = Extract<Claim, { kind: "run" }>;

it("a take-over between the first attempt's command end and its finish: the command ran once", async () => {
  const t = await seedBashTenant(h.call, "twice");
  const sid = (await h.call("POST", "/v1/sessions", { key: t.agentKey, body: {} })).body.id as string;
  const sub = await h.call("POST", `/v1/sessions/${sid}/calls`, {
    key: t.agentKey,
    body: { tool: "Bash", input: { command: COUNTED } },
  });
  expect(sub.status, JSON.stringify(sub.body)).toBe(202);
  const jid = sub.body.job.id as string;
  const deps = h.service.deps;

  // The seam: attempt 1's command has ended and its finish is on its way; the second delivery's
  // claim takes the job over first.
  let takeover: Claim | undefined;
  const window = takeoverWindow(deps, sid, async () => {
    takeover = await claimJob(deps, jid);
  });

  const first = await claimJob(deps, jid);
  expect(first.kind).toBe("run");
  const one = await executeJob(
    jobDeps(deps, (first as Running).job),
    first as Running,
    new AbortController().signal,
  );
  // Refused: the job is the second attempt's.
  expect(one).toBeUndefined();
  expect(takeover?.kind).toBe("run");

  const second = takeover as Running;
  const two = await executeJob(jobDeps(deps, second.job), second, new AbortController().signal);
  expectOneRunTakenOver(window, join(h.config.DATA_DIR, "sb", "workspaces", sid), two ?? {});
  await h.call("DELETE", `/v1/sessions/${sid}`, { key: t.agentKey });
}, 120_000);
