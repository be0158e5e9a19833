/**
 * The streaming contract seen by a plain `eventsource` client (what an integrator uses): chunks
 * are deltas (the output appears once), `result` carries the final result and is last, the
 * server ends the stream after it, and a reconnect after the end gets the result again and ends.
 */
import { EventSource } from "eventsource";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, seedBashTenant, startHarness } from "../support/harness.js";
import { waitForJob } from "../support/wait-for-job.js";

let h: Harness;
let agentKey: string;
let sid: string;

beforeAll(async () => {
  h = await startHarness();
  ({ agentKey } = await seedBashTenant(h.call));
  const s = await h.call("POST", "/v1/sessions", { key: agentKey, body: {} });
  expect(s.status, JSON.stringify(s.body)).toBe(201);
  sid = s.body.id;
});

afterAll(async () => {
  if (sid) await h?.call("DELETE", `/v1/sessions/${sid}`, { key: agentKey });
  await h?.stop();
});

interface Received {
  type: string;
  id: string;
  data: { content?: { text?: string }[]; status?: string; result?: { content: { text?: string }[] } };
}

/** An `EventSource` with the key in a header (the package's documented `fetch` hook); counts connections. */
function open(jid: string, onEvent: (e: Received, es: EventSource) => void) {
  const requests: Headers[] = [];
  const es = new EventSource(`${h.url}/v1/jobs/${jid}/events`, {
    fetch: (input, init) => {
      const headers = new Headers(init?.headers);
      headers.set("authorization", `Bearer ${agentKey}`);
      requests.push(headers);
      return fetch(input, { ...init, headers });
    },
  });
  for (const type of ["status", "chunk", "result"]) {
    es.addEventListener(type, (m) => onEvent({ type, id: m.lastEventId, data: JSON.parse(m.data) }, es));
  }
  return { es, requests };
}

const texts = (blocks: { text?: string }[] = []) => blocks.map((b) => b.text ?? "").join("");
const count = (haystack: string, needle: string) => haystack.split(needle).length - 1;

async function submitSlowEcho(): Promise<string> {
  const sub = await h.call("POST", `/v1/sessions/${sid}/calls`, {
    key: agentKey,
    body: { tool: "Bash", input: { command: "echo line-1; sleep 0.3; echo line-2; sleep 0.3; echo line-3" } },
  });
  expect(sub.status, JSON.stringify(sub.body)).toBe(202);
  // Not final yet: `queued`, or `running` when the insert claimed it (in-process hand-off).
  expect(["queued", "running"]).toContain(sub.body.job.status);
  return sub.body.job.id;
}

describe("SSE through the eventsource package", () => {
  it("closing on `result` as the docs say: chunks concatenate to the output once, one connection", async () => {
    const jid = await submitSlowEcho();
    const got: Received[] = [];
    const { es, requests } = await new Promise<ReturnType<typeof open>>((resolve) => {
      const opened = open(jid, (e, source) => {
        got.push(e);
        if (e.type === "result") {
          source.close();
          resolve(opened);
        }
      });
    });
    expect(es.readyState).toBe(EventSource.CLOSED);
    const streamed = texts(got.filter((e) => e.type === "chunk").flatMap((e) => e.data.content ?? []));
    const result = got.at(-1)!;
    expect(result.type).toBe("result");
    expect(result.data.status).toBe("succeeded");
    const final = texts(result.data.result?.content);
    expect(final).toBe("line-1\nline-2\nline-3\n");
    // Deltas only: a client that appends every chunk prints the output once, not twice.
    expect(streamed).toBe(final);
    expect(count(streamed, "line-1")).toBe(1);
    expect(got.filter((e) => e.type === "result")).toHaveLength(1);
    expect(requests).toHaveLength(1);
  });

  it("the server ends the stream after `result`; a reconnect gets the result again and is ended again", async () => {
    const jid = await submitSlowEcho();
    await waitForJob(h.call, agentKey, jid);
    // A client that does not close: the server's end makes it reconnect (after `retry:`).
    const got: Received[] = [];
    const { es, requests } = await new Promise<ReturnType<typeof open>>((resolve) => {
      const opened = open(jid, (e, source) => {
        got.push(e);
        if (got.filter((g) => g.type === "result").length === 2) {
          source.close();
          resolve(opened);
        }
      });
    });
    expect(es.readyState).toBe(EventSource.CLOSED);
    expect(requests).toHaveLength(2);
    const firstResult = got.find((e) => e.type === "result")!;
    // The reconnect resumed after the result: it was sent the result alone, not the job again.
    expect(requests[1]!.get("last-event-id")).toBe(firstResult.id);
    const afterReconnect = got.slice(got.indexOf(firstResult) + 1);
    expect(afterReconnect.map((e) => e.type)).toEqual(["result"]);
    expect(texts(afterReconnect[0]!.data.result?.content)).toBe("line-1\nline-2\nline-3\n");
  });

  it("a plain HTTP read ends by itself: `retry:` first, `result` last, then end of body", async () => {
    const jid = await submitSlowEcho();
    for (const lastEventId of [undefined, "final"]) {
      const res = await fetch(`${h.url}/v1/jobs/${jid}/events`, {
        headers: {
          authorization: `Bearer ${agentKey}`,
          ...(lastEventId ? { "last-event-id": lastEventId } : {}),
        },
      });
      // `text()` resolves only when the server closes the body.
      const body = await res.text();
      expect(body.startsWith("retry: 3000\n\n"), body).toBe(true);
      const events = [...body.matchAll(/^event: (\w+)$/gm)].map((m) => m[1]);
      expect(events.at(-1)).toBe("result");
      expect(events.filter((e) => e === "result")).toHaveLength(1);
      if (lastEventId) expect(events).toEqual(["result"]);
    }
  });
});
