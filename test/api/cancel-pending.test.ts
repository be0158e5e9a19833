/**
 * Cancelling a call that waits for an approval or for the client's external result (attack22b):
 * it ends `cancelled … before it started` at once, and the answer that comes after is a 409 that
 * changes nothing; an answer racing the cancel leaves the call cancelled, never run, never 5xx.
 */
import { beforeEach, expect, it } from "vitest";
import { twoTenants, type World } from "./tenancy-fixture.js";

let w: World;
beforeEach(async () => {
  w = await twoTenants();
});

const cancel = (jid: string) => w.t.call("POST", `/v1/jobs/${jid}/cancel`, { key: w.a.agentKey });
const approve = (jid: string) =>
  w.t.call("POST", `/v1/jobs/${jid}/approval`, { key: w.a.adminKey, body: { approve: true } });
const external = (jid: string) =>
  w.t.call("POST", `/v1/jobs/${jid}/external-result`, {
    key: w.a.agentKey,
    body: { content: [{ type: "text", text: "found" }] },
  });
const job = async (jid: string) => (await w.t.call("GET", `/v1/jobs/${jid}`, { key: w.a.agentKey })).body.job;

it("a call awaiting approval, cancelled: ends before it started; the approval after it is a 409", async () => {
  const res = await cancel(w.a.askJob);
  expect(res.status).toBe(200);
  expect(res.body.job.status).toBe("cancelled");
  expect(res.body.job.result.content[0].text).toBe("The tool call was cancelled before it started.");
  expect((await approve(w.a.askJob)).status).toBe(409);
  expect((await job(w.a.askJob)).status).toBe("cancelled");
});

it("a call awaiting its external result, cancelled: ends before it started; the result after it is a 409", async () => {
  expect((await cancel(w.a.extJob)).body.job.status).toBe("cancelled");
  expect((await external(w.a.extJob)).status).toBe(409);
  const after = await job(w.a.extJob);
  expect(after.status).toBe("cancelled");
  expect(after.result.content[0].text).toBe("The tool call was cancelled before it started.");
});

it("an approval and a cancel sent at once: the call ends cancelled whichever comes first, with no 5xx", async () => {
  const [a, c] = await Promise.all([approve(w.a.askJob), cancel(w.a.askJob)]);
  expect([200, 409]).toContain(a.status);
  expect(c.status).toBe(200);
  const after = await job(w.a.askJob);
  expect(after.status).toBe("cancelled");
  expect(after.attempts ?? []).toEqual([]);
});

it("an external result and a cancel sent at once: one of them wins whole, with no 5xx", async () => {
  const [r, c] = await Promise.all([external(w.a.extJob), cancel(w.a.extJob)]);
  expect(c.status).toBe(200);
  const after = await job(w.a.extJob);
  if (r.status === 200) {
    expect(after.status).toBe("succeeded");
    expect(after.result.content[0].text).toBe("found");
  } else {
    expect(r.status).toBe(409);
    expect(after.status).toBe("cancelled");
  }
});

// attack22c: a storm of cancels, from the owner and from another tenant, and a cancel of a call
// that has ended.
it("another tenant's cancels are 404s that change nothing; the owner's storm ends the call once", async () => {
  const foreign = await Promise.all(
    Array.from({ length: 20 }, () =>
      w.t.call("POST", `/v1/jobs/${w.a.askJob}/cancel`, { key: w.b.agentKey }),
    ),
  );
  expect(foreign.map((r) => r.status)).toEqual(Array(20).fill(404));
  expect((await job(w.a.askJob)).status).toBe("awaiting_approval");
  expect((await job(w.a.queuedJob)).status).toBe("queued");
  // Still the owner's to decide: the approval goes through.
  expect((await approve(w.a.askJob)).status).toBe(200);
  const storm = await Promise.all(Array.from({ length: 20 }, () => cancel(w.a.extJob)));
  expect(storm.map((r) => r.status)).toEqual(Array(20).fill(200));
  const texts = new Set(storm.map((r) => r.body.job.result.content[0].text));
  expect([...texts]).toEqual(["The tool call was cancelled before it started."]);
  const ended = await job(w.a.extJob);
  // A cancel of a call that has ended returns it as it is, changing nothing.
  const again = await cancel(w.a.extJob);
  expect(again.status).toBe(200);
  expect(again.body.job).toEqual(ended);
  expect((await cancel(w.a.deniedJob)).body.job.status).toBe("denied");
});
