/**
 * Ordering with the real worker and Docker: within a session, unsafe calls run alone and in
 * submission order; different sessions run at the same time.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { type Harness, seedBashTenant, startHarness } from "../support/harness.js";
import { waitForJob } from "../support/wait-for-job.js";

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.stop();
});

interface Span {
  sid: string;
  start: number;
  end: number;
}

it("a session's Bash calls never overlap and keep their order; sessions overlap", async () => {
  const t = await seedBashTenant(h.call);
  const sids: string[] = [];
  for (let i = 0; i < 2; i++)
    sids.push((await h.call("POST", "/v1/sessions", { key: t.agentKey, body: {} })).body.id);
  // Warm both containers so that start-up time does not blur the picture.
  await Promise.all(
    sids.map((sid) =>
      h.call("POST", `/v1/sessions/${sid}/calls?wait=60`, {
        key: t.agentKey,
        body: { tool: "Bash", input: { command: "true" } },
      }),
    ),
  );
  const ids: { sid: string; id: string }[] = [];
  for (let i = 0; i < 3; i++) {
    for (const sid of sids) {
      const r = await h.call("POST", `/v1/sessions/${sid}/calls`, {
        key: t.agentKey,
        body: { tool: "Bash", input: { command: "sleep 0.7" } },
      });
      ids.push({ sid, id: r.body.job.id });
    }
  }
  const spans: Span[] = [];
  for (const { sid, id } of ids) {
    const job = await waitForJob(h.call, t.agentKey, id, { timeoutMs: 60_000 });
    expect(job.status, JSON.stringify(job)).toBe("succeeded");
    spans.push({ sid, start: Date.parse(job.startedAt), end: Date.parse(job.finishedAt) });
  }
  for (const sid of sids) {
    const mine = spans.filter((s) => s.sid === sid);
    for (let i = 1; i < mine.length; i++) expect(mine[i]!.start).toBeGreaterThanOrEqual(mine[i - 1]!.end);
  }
  const [a, b] = sids.map((sid) => spans.filter((s) => s.sid === sid));
  const overlap = a!.some((x) => b!.some((y) => x.start < y.end && y.start < x.end));
  expect(overlap).toBe(true);
  for (const sid of sids) await h.call("DELETE", `/v1/sessions/${sid}`, { key: t.agentKey });
});
