import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { errorResponse } from "../../src/api/errors.js";
import { NotFoundError } from "../../src/errors.js";
import { createLogger } from "../../src/log.js";
import { SandboxUnavailableError } from "../../src/sandbox/sandbox.js";

/** An app whose one route throws `err`, answered by the one error mapping. */
async function answer(err: unknown) {
  const app = new Hono();
  app.get("/", () => {
    throw err;
  });
  app.onError((e, c) => errorResponse(c, e, createLogger("silent")));
  const res = await app.request("/");
  return { res, body: (await res.json()) as { error: { code: string; message: string } } };
}

describe("errorResponse", () => {
  it("answers the sandbox's unavailability 503 SANDBOX_UNAVAILABLE without importing it", async () => {
    const { res, body } = await answer(new SandboxUnavailableError("the engine is gone"));
    expect(res.status, JSON.stringify(body)).toBe(503);
    expect(body.error).toEqual({ code: "SANDBOX_UNAVAILABLE", message: "the engine is gone" });
    expect(res.headers.get("retry-after")).toBeNull();
  });

  it("keeps an AppError's code and message", async () => {
    const { res, body } = await answer(new NotFoundError("session", "ses_x"));
    expect(res.status, JSON.stringify(body)).toBe(404);
    expect(body.error).toEqual({ code: "NOT_FOUND", message: "session ses_x not found" });
  });

  it("answers a Redis outage 503 UNAVAILABLE with retry-after", async () => {
    const { res, body } = await answer(new Error("Connection is closed."));
    expect(res.status, JSON.stringify(body)).toBe(503);
    expect(body.error.code).toBe("UNAVAILABLE");
    expect(res.headers.get("retry-after")).toBe("2");
  });

  it("answers a lost Postgres 503 UNAVAILABLE naming the database, however Drizzle wraps it", async () => {
    const refused = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" });
    const query = (cause: Error) =>
      Object.assign(new Error("Failed query: select 1", { cause }), { name: "DrizzleQueryError" });
    const unreachable = Object.assign(new Error("the database is unreachable", { cause: refused }), {
      name: "DatabaseUnreachableError",
    });
    const shutdown = Object.assign(new Error("terminating connection due to administrator command"), {
      code: "57P01",
    });
    for (const err of [
      query(refused),
      query(unreachable),
      unreachable,
      query(new Error("Connection terminated unexpectedly")),
      query(shutdown),
    ]) {
      const { res, body } = await answer(err);
      expect(res.status, JSON.stringify(body)).toBe(503);
      expect(body.error).toEqual({
        code: "UNAVAILABLE",
        message: "the database is unreachable; retry shortly",
      });
      expect(res.headers.get("retry-after")).toBe("2");
    }
  });

  it("keeps 500 for a failed statement and for a refused connection that is no query of ours", async () => {
    const syntax = Object.assign(new Error('syntax error at or near "selec"'), { code: "42601" });
    const query = Object.assign(new Error("Failed query: selec 1", { cause: syntax }), {
      name: "DrizzleQueryError",
    });
    const other = Object.assign(new Error("connect ECONNREFUSED 10.0.0.1:80"), { code: "ECONNREFUSED" });
    for (const err of [query, other]) {
      const { res } = await answer(err);
      expect(res.status).toBe(500);
    }
  });

  it("hides an unknown error's text behind 500 INTERNAL", async () => {
    const { res, body } = await answer(new Error("secret detail"));
    expect(res.status, JSON.stringify(body)).toBe(500);
    expect(body.error).toEqual({ code: "INTERNAL", message: "internal error" });
  });
});
