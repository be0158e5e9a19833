/**
 * The TypeScript client's retries and pages without a server: a 429 or 503 (the API did
 * nothing) is sent again after its Retry-After; a failed connection is sent again only when that
 * cannot run anything twice; lists follow `nextCursor` only as far as the loop goes.
 */
import { describe, expect, it } from "vitest";
import { Toolshed, ToolshedError } from "../../clients/typescript/src/index.js";

type Answer = Response | Error;

/** A fetch answering from `answers` in turn, recording each request. */
function scripted(answers: Answer[]) {
  const seen: { method: string; url: string; body: string | undefined }[] = [];
  const fetch = async (url: string | URL | Request, init?: RequestInit) => {
    seen.push({ method: init?.method ?? "GET", url: String(url), body: init?.body as string | undefined });
    const next = answers.shift();
    if (!next) throw new Error("no more answers");
    if (next instanceof Error) throw next;
    return next;
  };
  return { fetch: fetch as typeof globalThis.fetch, seen };
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });
const job = { id: "job_1", status: "queued" };
const session = { id: "ses_1" };
const unavailable = () =>
  json(503, { error: { code: "UNAVAILABLE", message: "Redis" } }, { "retry-after": "1" });
const refused = () => new TypeError("fetch failed");

function client(answers: Answer[], maxRetries = 3) {
  const s = scripted(answers);
  // Retry-After 1 s is waited at most 5 ms here: the waits are the policy's, not the test's.
  const c = new Toolshed({
    baseUrl: "http://api.test/",
    apiKey: "k",
    fetch: s.fetch,
    maxRetries,
    maxRetryDelay: 0.005,
  });
  return { c, seen: s.seen };
}

describe("retries", () => {
  it("sends a request again after a 503 or a 429, up to maxRetries, then throws the last answer", async () => {
    const ok = client([
      unavailable(),
      json(429, { error: { code: "RATE_LIMITED", message: "slow" } }),
      json(200, session),
    ]);
    expect((await ok.c.sessions.get("ses_1")).id).toBe("ses_1");
    expect(ok.seen).toHaveLength(3);

    const no = client([unavailable(), unavailable(), unavailable()], 2);
    const err = await no.c.sessions.create().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ToolshedError);
    expect(err).toMatchObject({ status: 503, code: "UNAVAILABLE", retryAfter: 1 });
    expect(no.seen).toHaveLength(3);
  });

  it("never sends a 4xx other than 429 again", async () => {
    const { c, seen } = client([
      json(400, { error: { code: "VALIDATION", message: "m", details: [{ path: "tool", message: "x" }] } }),
    ]);
    const sess = await c.sessions.get("ses_1").catch((e: unknown) => e);
    expect(sess).toMatchObject({ status: 400, field: "tool" });
    expect(seen).toHaveLength(1);
  });

  it("after a failed connection, sends a call again only with an idempotency key", async () => {
    const withKey = client([json(200, session), refused(), json(202, { job })]);
    const s1 = await withKey.c.sessions.get("ses_1");
    expect(
      (await s1.call("Write", { file_path: "/workspace/a", content: "x" }, { idempotencyKey: "k1" })).id,
    ).toBe("job_1");
    expect(withKey.seen.map((r) => r.method)).toEqual(["GET", "POST", "POST"]);
    expect(JSON.parse(withKey.seen[2]!.body!)).toMatchObject({ idempotencyKey: "k1" });

    // Without a key the call may have been received: sent once, and the error says what to do.
    const noKey = client([json(200, session), refused(), json(202, { job })]);
    const s2 = await noKey.c.sessions.get("ses_1");
    const err = await s2.call("Write", { file_path: "/workspace/a", content: "x" }).catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 0, code: "NETWORK_ERROR" });
    expect((err as Error).message).toContain("idempotencyKey");
    expect(noKey.seen).toHaveLength(2);
    // Creating a session is not idempotent either; reading one is.
    const create = client([refused(), json(201, session)]);
    await expect(create.c.sessions.create()).rejects.toMatchObject({ code: "NETWORK_ERROR" });
    const read = client([refused(), json(200, session)]);
    expect((await read.c.sessions.get("ses_1")).id).toBe("ses_1");
  });

  it("after a failed connection, never sends a file upload or tar import again (each makes a job); a download yes", async () => {
    const up = client([json(200, session), refused(), refused(), json(200, {})]);
    const s = await up.c.sessions.get("ses_1");
    await expect(s.files.put("/workspace/a", "x")).rejects.toMatchObject({ code: "NETWORK_ERROR" });
    await expect(s.files.importTar(new Uint8Array(512))).rejects.toMatchObject({ code: "NETWORK_ERROR" });
    expect(up.seen.map((r) => r.method)).toEqual(["GET", "PUT", "PUT"]);
    const down = client([json(200, session), refused(), new Response("x")]);
    const d = await down.c.sessions.get("ses_1");
    expect(await d.files.getText("/workspace/a")).toBe("x");
    expect(down.seen).toHaveLength(3);
  });

  it("never sends a 504 TRANSFER_PENDING again: its job exists and will run", async () => {
    const pending = json(504, {
      error: { code: "TRANSFER_PENDING", message: "job_9", details: [{ path: "job", message: "job_9" }] },
    });
    const { c, seen } = client([json(200, session), pending, json(200, {})]);
    const s = await c.sessions.get("ses_1");
    await expect(s.files.put("/workspace/a", "x")).rejects.toMatchObject({
      status: 504,
      code: "TRANSFER_PENDING",
    });
    expect(seen).toHaveLength(2);
  });
});

describe("lists", () => {
  it("follow nextCursor as the loop goes, and ask for no page the loop does not reach", async () => {
    const page = (ids: string[], nextCursor: string | null) =>
      json(200, { items: ids.map((id) => ({ ...job, id })), nextCursor });
    const { c, seen } = client([page(["a", "b"], "c1"), page(["c"], "c2"), page(["d"], null)]);
    const ids: string[] = [];
    for await (const j of c.jobs.list({ sessionId: "ses_1", status: ["failed", "cancelled"], limit: 2 })) {
      ids.push(j.id);
      if (j.id === "c") break;
    }
    expect(ids).toEqual(["a", "b", "c"]);
    expect(seen.map((r) => new URL(r.url).search)).toEqual([
      "?sessionId=ses_1&status=failed&status=cancelled&limit=2",
      "?sessionId=ses_1&status=failed&status=cancelled&limit=2&cursor=c1",
    ]);
  });
});
