/**
 * What a log line never carries: `headers`, `env` and `authorization`, as a line's own field or a
 * field of one of its fields (an error's own properties too), whatever else the line holds; and
 * the caller's object is left as it was.
 */
import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { createLogger, REDACTED, redactSecrets } from "../src/log.js";

function captured() {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      lines.push(JSON.parse(String(chunk)));
      done();
    },
  });
  return { logger: createLogger("info", sink), lines };
}

/** A line's fields besides pino's own (time, pid, hostname, level). */
function fieldsOf(line: Record<string, unknown>) {
  const { time: _t, pid: _p, hostname: _h, level: _l, ...rest } = line;
  return rest;
}

class HttpError extends Error {
  headers = { authorization: "Bearer tsk_secret" };
  code = "E_HTTP";
}

describe("log lines never carry secrets", () => {
  it.each([
    [
      "a top-level headers field",
      { headers: { authorization: "Bearer s" }, a: 1 },
      { headers: REDACTED, a: 1 },
    ],
    ["a top-level env field", { env: { TOKEN: "v" } }, { env: REDACTED }],
    ["a top-level authorization field", { authorization: "Bearer s" }, { authorization: REDACTED }],
    ["a null secret field", { headers: null }, { headers: REDACTED }],
    ["an undefined secret field (left out)", { headers: undefined, x: 1 }, { x: 1 }],
    [
      "req.headers",
      { req: { headers: { authorization: "Bearer s" }, url: "/x" } },
      { req: { headers: REDACTED, url: "/x" } },
    ],
    ["config.env", { config: { env: { K: "v" }, image: "i" } }, { config: { env: REDACTED, image: "i" } }],
    [
      "x.authorization",
      { opts: { authorization: "x", keep: 1 } },
      { opts: { authorization: REDACTED, keep: 1 } },
    ],
    ["x.headers undefined", { req: { headers: undefined, u: 1 } }, { req: { headers: REDACTED, u: 1 } }],
    [
      "two levels down (not a secret key's place)",
      { a: { b: { headers: "kept" } } },
      { a: { b: { headers: "kept" } } },
    ],
    ["an array's items", { list: [{ headers: "kept" }] }, { list: [{ headers: "kept" }] }],
    [
      "a line with no secret",
      { requestId: "r", status: 200, route: "/v1/x" },
      { requestId: "r", status: 200, route: "/v1/x" },
    ],
  ])("%s", (_name, fields, expected) => {
    const { logger, lines } = captured();
    const before = JSON.stringify(fields);
    logger.info(fields, "m");
    expect(fieldsOf(lines[0]!)).toEqual({ ...expected, msg: "m" });
    expect(JSON.stringify(fields)).toBe(before);
  });

  it("censors an error's own secret properties and still logs it as an error", () => {
    const { logger, lines } = captured();
    const err = new HttpError("request failed");
    logger.warn({ err }, "m");
    const logged = lines[0]!.err as Record<string, unknown>;
    expect(logged).toMatchObject({
      type: "HttpError",
      message: "request failed",
      headers: REDACTED,
      code: "E_HTTP",
    });
    expect(String(logged.stack)).toContain("request failed");
    expect(JSON.stringify(lines[0])).not.toContain("tsk_secret");
    expect(err.headers.authorization).toBe("Bearer tsk_secret");
  });

  it("censors a secret a field inherits and writes from its toJSON (pino's paths did not)", () => {
    class FetchedAnswer {
      get headers() {
        return { authorization: "Bearer tsk_secret" };
      }
      toJSON() {
        return { headers: this.headers, ok: true };
      }
    }
    const { logger, lines } = captured();
    logger.info({ res: new FetchedAnswer() }, "m");
    expect(fieldsOf(lines[0]!)).toEqual({ res: { headers: REDACTED, ok: true }, msg: "m" });
  });

  it("censors a child logger's bindings", () => {
    const { logger, lines } = captured();
    const child = logger.child({ env: { TOKEN: "v" }, svc: "s" });
    child.info("m");
    child.child({ req: { headers: { authorization: "Bearer s" } } }).info("m");
    expect(lines[0]).toMatchObject({ env: REDACTED, svc: "s" });
    expect(lines[1]).toMatchObject({ env: REDACTED, svc: "s", req: { headers: REDACTED } });
  });

  it("censors bindings set on a logger after it was made (setBindings), as pino's paths did", () => {
    const { logger, lines } = captured();
    const child = logger.child({ svc: "s" });
    child.setBindings({ env: { TOKEN: "tsk_bound" }, req: { authorization: "Bearer tsk_bound" } });
    child.info("m");
    logger.setBindings({ headers: { authorization: "Bearer tsk_root" } });
    logger.info("m");
    expect(lines[0]).toMatchObject({ env: REDACTED, svc: "s", req: { authorization: REDACTED } });
    expect(lines[1]).toMatchObject({ headers: REDACTED });
    expect(JSON.stringify(lines)).not.toContain("tsk_");
  });

  it("returns a line with nothing to censor as it is (no copy)", () => {
    const fields = { requestId: "r", decision: { behavior: "allow" }, n: 1 };
    expect(redactSecrets(fields)).toBe(fields);
  });
});
