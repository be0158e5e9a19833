/**
 * The TypeScript client's SSE side without a server: the reader follows the SSE framing
 * (CRLF, comments, multi-line data, `retry:` alone), and `job.stream()` resumes a dropped
 * connection after the last event it received.
 */
import { describe, expect, it } from "vitest";
import { type JobData, type JobEvent, Toolshed, ToolshedError } from "../../clients/typescript/src/index.js";
import { readSse } from "../../clients/typescript/src/sse.js";

const body = (...parts: string[]) =>
  new ReadableStream<Uint8Array>({
    start(c) {
      for (const p of parts) c.enqueue(new TextEncoder().encode(p));
      c.close();
    },
  });

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

describe("readSse", () => {
  it("parses events split across reads, CRLF, comments and multi-line data; `retry:` alone is no event", async () => {
    const got = await collect(
      readSse(
        body(
          "retry: 3000\n\n: keep-alive\n\nevent: chunk\r\nda",
          "ta: a\r\ndata: b\r\nid: 1-0\r\n\r\n",
          "data: x\n\n",
        ),
      ),
    );
    expect(got).toEqual([
      { event: "chunk", id: "1-0", data: "a\nb" },
      { event: "message", id: undefined, data: "x" },
    ]);
  });
});

describe("job.stream()", () => {
  const job = { id: "job_1", status: "running" } as JobData;

  it("resumes after the last event when the connection drops before the result", async () => {
    const seen: (string | null)[] = [];
    const answers = [
      'event: chunk\nid: 1-0\ndata: {"content":[{"type":"text","text":"a"}],"state":"running"}\n\n',
      'event: status\nid: 2-0\ndata: {"status":"succeeded"}\n\nevent: result\nid: 2-1\ndata: {"status":"succeeded","result":{"content":[{"type":"text","text":"a"}],"state":"success"}}\n\n',
    ];
    const client = new Toolshed({
      baseUrl: "http://127.0.0.1:1",
      apiKey: "k",
      fetch: async (_url, init) => {
        seen.push(new Headers(init?.headers).get("last-event-id"));
        expect(new Headers(init?.headers).get("accept")).toBe("text/event-stream");
        return new Response(body(answers[seen.length - 1]!), { status: 200 });
      },
    });
    const j = client.jobs.wrap(job);
    const events: JobEvent[] = await collect(j.stream());
    expect(events.map((e) => e.event)).toEqual(["chunk", "status", "result"]);
    expect(seen).toEqual([null, "1-0"]);
    expect(j.status).toBe("succeeded");
    expect(j.text).toBe("a");
  });

  it("gives up with a typed error after its reconnects, and passes API errors through", async () => {
    let calls = 0;
    const empty = new Toolshed({
      baseUrl: "http://127.0.0.1:1",
      apiKey: "k",
      fetch: async () => {
        calls++;
        return new Response(body(": nothing\n\n"), { status: 200 });
      },
    });
    await expect(collect(empty.jobs.wrap(job).stream({ reconnects: 2 }))).rejects.toMatchObject({
      code: "STREAM_ENDED",
    });
    expect(calls).toBe(3);

    const gone = new Toolshed({
      baseUrl: "http://127.0.0.1:1",
      apiKey: "k",
      fetch: async () =>
        Response.json(
          { error: { code: "NOT_FOUND", message: "no such job" }, requestId: "r1" },
          { status: 404 },
        ),
    });
    const err = await collect(gone.jobs.wrap(job).stream()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ToolshedError);
    expect(err).toMatchObject({ status: 404, code: "NOT_FOUND", requestId: "r1" });
  });
});
