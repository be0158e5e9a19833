/** The API is built from its port alone: routes reach the service only through the verbs it lists. */
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/api/app.js";
import { UnauthenticatedError } from "../../src/errors.js";
import { createLogger } from "../../src/log.js";
import type { ApiPort } from "../../src/service/api-port.js";
import { Metrics } from "../../src/service/metrics.js";
import { KeyStreams } from "../../src/service/tenancy/key-streams.js";
import type { Principal } from "../../src/service/tenancy/principal.js";

const fail = (message: string): never => {
  throw new Error(message);
};
const agent: Principal = { keyId: "k1", role: "agent", tenantId: "t1" };

/** A port with only the verbs given; any other verb a route calls fails the request loudly. */
function appWith(verbs: Partial<ApiPort>) {
  const calls: string[] = [];
  const given: Partial<ApiPort> = {
    authenticate: async (secret) => {
      if (secret !== "good") throw new UnauthenticatedError();
      return agent;
    },
    metrics: new Metrics(),
    keyStreams: new KeyStreams({} as never),
    ...verbs,
  };
  const port = new Proxy(given, {
    get: (target, name: string) => {
      if (name === "mcpServers" || !(name in target)) {
        return name === "mcpServers" ? undefined : () => fail(`verb ${name} not given`);
      }
      const v: unknown = target[name as keyof ApiPort];
      if (typeof v !== "function") return v;
      return (...args: unknown[]) => {
        calls.push(name);
        return (v as (...a: unknown[]) => unknown)(...args);
      };
    },
  }) as ApiPort;
  return {
    app: createApp({
      port,
      sessionMcp: { handle: () => fail("the session MCP endpoint is not given") },
      bodyLimitBytes: 1024,
      logger: createLogger("silent"),
    }),
    calls,
  };
}

describe("the API port", () => {
  it("a job is read through the port's getJob with the authenticated caller", async () => {
    const seen: unknown[] = [];
    const { app, calls } = appWith({
      getJob: (p, jid) => {
        seen.push([p, jid]);
        return Promise.resolve({ id: jid, status: "succeeded" }) as ReturnType<ApiPort["getJob"]>;
      },
    });
    const res = await app.request("/v1/jobs/job_1", { headers: { authorization: "Bearer good" } });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ job: { id: "job_1", status: "succeeded" } });
    expect(seen).toEqual([[agent, "job_1"]]);
    expect(calls).toEqual(["authenticate", "getJob"]);
  });

  it("without MCP server verbs, the MCP server routes are not served", async () => {
    const { app } = appWith({});
    const res = await app.request("/v1/tenants/t1/mcp-servers", {
      headers: { authorization: "Bearer good" },
    });
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: { code: "NOT_FOUND" } });
  });
});
