/**
 * Attack 9, SSRF through a tenant's HTTP MCP server: the host must refuse loopback, link-local
 * and cloud-metadata addresses, whatever the spelling, before connecting, and tell the tenant
 * admin why. A listener on loopback counts what reaches it; a guard in this process stops (and
 * records) any connect to a non-loopback address, so no test ever reaches one.
 */
import { createServer, type Server } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ConnectAttempt, guardConnects } from "./connect-guard.js";
import { harnessFor, newAttacker, runtimes } from "./support.js";

interface Listener {
  server: Server;
  port: number;
  connections: number;
}

/** Accepts and drops connections on `host`, counting them. */
async function listen(host: string): Promise<Listener> {
  const l: Listener = { server: createServer(), port: 0, connections: 0 };
  l.server.on("connection", (sock) => {
    l.connections++;
    sock.destroy();
  });
  await new Promise<void>((resolve, reject) => {
    l.server.once("error", reject);
    l.server.listen(0, host, () => resolve());
  });
  l.port = (l.server.address() as { port: number }).port;
  return l;
}

/** `{v4}` / `{v6}` stand for the ports of the IPv4 / IPv6 loopback listeners. */
const LOOPBACK_URLS = [
  "http://127.0.0.1:{v4}/mcp",
  "http://localhost:{v4}/mcp",
  "http://0x7f000001:{v4}/mcp",
  "http://2130706433:{v4}/mcp",
  "http://127.1:{v4}/mcp",
  "http://[::ffff:127.0.0.1]:{v4}/mcp",
  "http://[::1]:{v6}/mcp",
];
/** Never reached: the guard stops these before connecting; an attempt is the failure. */
const REMOTE_URLS = [
  "http://169.254.169.254/latest/meta-data/",
  "http://[fd00::1]/mcp",
  "http://10.0.0.1/mcp",
];

describe.each(runtimes)("containment under %s: the host fetches nothing internal for a tenant", (runtime) => {
  const h = harnessFor(runtime);
  let guard: { attempts: ConnectAttempt[]; restore(): void };
  let v4: Listener;
  let v6: Listener | undefined;

  beforeAll(async () => {
    guard = guardConnects();
    v4 = await listen("127.0.0.1");
    v6 = await listen("::1").catch(() => undefined); // no IPv6 loopback on this machine
  });
  afterAll(async () => {
    guard?.restore();
    for (const l of [v4, v6]) await new Promise((r) => l?.server.close(r) ?? r(undefined));
  });

  /** Registers `url` as the tenant's MCP server and lists its tools; the answer the admin sees. */
  async function registerAndList(url: string) {
    const a = await newAttacker(h(), {});
    const reg = await h().call("POST", `/v1/tenants/${a.tenantId}/mcp-servers`, {
      key: a.adminKey,
      body: { name: "internal", transport: "http", url },
    });
    if (reg.status !== 201) return { refusedAt: "registration", answer: reg };
    const listing = await h().call("GET", `/v1/tenants/${a.tenantId}/mcp-servers/internal/tools`, {
      key: a.adminKey,
    });
    await h().call("GET", `/v1/sessions/${a.sid}/tools`, { key: a.agentKey });
    return { refusedAt: "listing", answer: listing };
  }

  /** A clear answer: a 4xx with a code at registration, or a listing error that names the policy. */
  function expectClearRefusal({ refusedAt, answer }: Awaited<ReturnType<typeof registerAndList>>) {
    const body = JSON.stringify(answer.body);
    if (refusedAt === "registration") {
      expect.soft(answer.status, body).toBeGreaterThanOrEqual(400);
      expect.soft(answer.status, body).toBeLessThan(500);
      expect.soft(answer.body?.error?.code, body).toEqual(expect.any(String));
    } else {
      expect
        .soft(body, "the listing does not say the address is refused")
        .toMatch(/egress|blocked|not allowed/i);
    }
  }

  it.for(LOOPBACK_URLS)("%s is refused without a connection", async (template, { skip }) => {
    if (template.includes("{v6}") && !v6) skip();
    const url = template.replace("{v4}", String(v4.port)).replace("{v6}", String(v6?.port));
    const before = v4.connections + (v6?.connections ?? 0);
    const outcome = await registerAndList(url);
    const reached = v4.connections + (v6?.connections ?? 0) - before;
    expect.soft(reached, `connections the host made to ${url}`).toBe(0);
    expectClearRefusal(outcome);
  });

  it.for(REMOTE_URLS)("%s is refused without a connection attempt", async (url) => {
    const host = new URL(url).hostname.replace(/^\[(.*)\]$/, "$1");
    const outcome = await registerAndList(url);
    const tried = guard.attempts.filter((x) => x.host === host);
    expect.soft(tried, `the host tried to connect to ${host} (stopped by the test's guard)`).toEqual([]);
    expectClearRefusal(outcome);
  });
});
