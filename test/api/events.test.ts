/** `GET /v1/jobs/{jid}/events`: resuming past the end still yields the stored result. */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createApiTestApp, seedTenant } from "../support/harness.js";
import { NullSandboxProvider } from "../support/null-sandbox.js";

let t: ReturnType<typeof createApiTestApp>;
let a: Awaited<ReturnType<typeof seedTenant>>;
let sid: string;

beforeEach(async () => {
  t = createApiTestApp(new NullSandboxProvider());
  a = await seedTenant(t.call);
  await t.call("PUT", `/v1/tenants/${a.tenantId}/rules`, {
    key: a.adminKey,
    body: { allow: [], deny: ["Bash(rm:*)"], ask: ["Bash(touch:*)"] },
  });
  sid = (await t.call("POST", "/v1/sessions", { key: a.agentKey, body: {} })).body.id;
});
afterEach(() => t.close());

const submit = (command: string) =>
  t.call("POST", `/v1/sessions/${sid}/calls`, {
    key: a.agentKey,
    body: { tool: "Bash", input: { command } },
  });
const events = (jid: string, lastEventId?: string) =>
  t.app.request(`/v1/jobs/${jid}/events`, {
    headers: {
      authorization: `Bearer ${a.agentKey}`,
      ...(lastEventId === undefined ? {} : { "last-event-id": lastEventId }),
    },
  });

/** `[{event, id, data}]` of an SSE text. */
function parseSse(text: string) {
  return text
    .split("\n\n")
    .filter((block) => block.includes("event:"))
    .map((block) => ({
      event: /event: (.*)/.exec(block)?.[1],
      id: /id: (.*)/.exec(block)?.[1],
      data: JSON.parse(/data: (.*)/.exec(block)?.[1] ?? "null"),
    }));
}

describe("Last-Event-ID past the end", () => {
  it("a finished job's stream resumed at or past its last event sends the stored result again", async () => {
    const jid = (await submit("rm z")).body.job.id;
    const full = parseSse(await (await events(jid)).text());
    const last = full.at(-1)!;
    expect(last.event).toBe("result");
    for (const id of [last.id!, "final", "99999999999999-0", "999999999999999999999999-7"]) {
      const res = await events(jid, id);
      expect(res.status, id).toBe(200);
      const resumed = parseSse(await res.text());
      expect(
        resumed.map((e) => e.event),
        id,
      ).toEqual(["result"]);
      expect(resumed[0]!.data).toMatchObject({ status: "denied", result: { state: "denied" } });
    }
  });

  it("a pending job resumed past the end gets its result when it finishes", async () => {
    const jid = (await submit("touch y")).body.job.id;
    const res = await events(jid, "99999999999999-0");
    expect(res.status).toBe(200);
    const text = res.text();
    const answered = await t.call("POST", `/v1/jobs/${jid}/approval`, {
      key: a.adminKey,
      body: { approve: false },
    });
    expect(answered.body.job.status).toBe("denied");
    expect(parseSse(await text).map((e) => [e.event, e.data.status])).toEqual([["result", "denied"]]);
  });

  it("an id that is no event id is a 400 naming the header", async () => {
    const jid = (await submit("rm z")).body.job.id;
    for (const id of ["nope", "1-", "-1", "1-2-3"]) {
      const res = await events(jid, id);
      expect(res.status, id).toBe(400);
      expect(((await res.json()) as { error: { details: { path: string }[] } }).error.details[0]!.path).toBe(
        "Last-Event-ID",
      );
    }
  });
});
