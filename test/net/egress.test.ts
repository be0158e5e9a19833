/**
 * The egress policy, its DNS hook and its fetch. Only loopback is ever connected to: "public"
 * names resolve through a fake resolver, and no test lets a public address reach a socket.
 */
import type { LookupAddress } from "node:dns";
import { createServer, type Server } from "node:http";
import type { LookupFunction } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.js";
import { egressClient } from "../../src/net/egress-fetch.js";
import { egressLookup, type Resolve } from "../../src/net/egress-lookup.js";
import { EgressPolicy, EgressRefusedError, parseEgressAllow } from "../../src/net/egress-policy.js";
import { parseIp } from "../../src/net/ip-address.js";

const policy = (allow = "") => new EgressPolicy(loadConfig({ EGRESS_ALLOW: allow }).EGRESS_ALLOW);

/** A fake DNS: name → addresses; records every name it was asked for. */
function fakeDns(table: Record<string, string[]>) {
  const asked: string[] = [];
  const resolve: Resolve = (hostname, _options, callback) => {
    asked.push(hostname);
    const addresses = table[hostname];
    if (!addresses) return callback(Object.assign(new Error("not found"), { code: "ENOTFOUND" }), []);
    callback(
      null,
      addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 })),
    );
  };
  return { resolve, asked };
}

/** Runs a lookup hook to completion: the addresses it hands the socket, or its error. */
function lookupWith(lookup: LookupFunction, hostname: string, all = true) {
  return new Promise<{ err: NodeJS.ErrnoException | null; address: string | LookupAddress[] }>((resolve) =>
    lookup(hostname, { all }, (err, address) => resolve({ err, address })),
  );
}

describe("EGRESS_ALLOW", () => {
  it("parses CIDRs, addresses, names and wildcards, and names a bad entry", () => {
    expect(parseEgressAllow(" 127.0.0.1/32, ::1, MCP.corp.example ,*.svc.local,")).toMatchObject({
      cidrs: [{ prefix: 32 }, { prefix: 128 }],
      hosts: ["mcp.corp.example", "*.svc.local"],
    });
    expect(parseEgressAllow("10.0.0.0/8,http://x")).toEqual({
      error: "'http://x' is neither a CIDR (10.0.0.0/8, ::1/128) nor a host name",
    });
    expect(() => loadConfig({ EGRESS_ALLOW: "10.0.0.0/40" })).toThrow(
      /EGRESS_ALLOW: '10.0.0.0\/40' is neither/,
    );
  });
});

describe("EgressPolicy", () => {
  it("refuses local and metadata names and refused IP literals from the name alone", () => {
    const p = policy();
    for (const host of ["localhost", "LOCALHOST.", "a.localhost", "metadata.google.internal", "metadata"]) {
      expect(p.checkHost(host)?.reason, host).toMatch(/is a local or cloud-metadata name$/);
    }
    expect(p.checkHost("[::ffff:127.0.0.1]")?.reason).toBe(
      "0:0:0:0:0:ffff:7f00:1 is a loopback address (127.0.0.0/8)",
    );
    expect(p.checkHost("169.254.169.254")?.reason).toBe(
      "169.254.169.254 is a cloud-metadata address (169.254.169.254/32)",
    );
    expect(p.checkHost("mcp.example.com")).toBeNull();
    expect(p.checkHost("93.184.216.34")).toBeNull();
  });

  it("lets the operator allow blocks and names, and only those", () => {
    const p = policy("127.0.0.1/32,*.corp.example,localhost");
    expect(p.checkAddress("x", parseIp("127.0.0.1")!)).toBeNull();
    expect(p.checkAddress("x", parseIp("127.0.0.2")!)?.reason).toBe(
      "x resolves to 127.0.0.2, a loopback address (127.0.0.0/8)",
    );
    expect(p.checkAddress("db.corp.example", parseIp("10.0.0.5")!)).toBeNull();
    expect(p.checkAddress("corp.example", parseIp("10.0.0.5")!)).not.toBeNull();
    expect(p.checkHost("localhost")).toBeNull();
    expect(p.checkHost("169.254.169.254")).not.toBeNull();
  });

  it("words the refusal for the tenant admin", () => {
    const err = new EgressRefusedError(policy().checkHost("10.0.0.1")!);
    expect(err.code).toBe("EGRESS_REFUSED");
    expect(err.message).toBe(
      "egress refused: 10.0.0.1 is a private address (10.0.0.0/8); the operator may allow it with EGRESS_ALLOW",
    );
  });
});

describe("the lookup hook", () => {
  it("hands a public address to the socket (checked here, never connected to)", async () => {
    const dns = fakeDns({ "mcp.example.com": ["93.184.216.34", "2606:2800:220:1::1"] });
    const lookup = egressLookup(policy(), dns.resolve);
    expect(await lookupWith(lookup, "mcp.example.com")).toEqual({
      err: null,
      address: [
        { address: "93.184.216.34", family: 4 },
        { address: "2606:2800:220:1::1", family: 6 },
      ],
    });
    expect(await lookupWith(lookup, "mcp.example.com", false)).toEqual({
      err: null,
      address: "93.184.216.34",
    });
  });

  it.each([
    [
      "rebind.example",
      ["127.0.0.1"],
      "rebind.example resolves to 127.0.0.1, a loopback address (127.0.0.0/8)",
    ],
    ["mixed.example", ["93.184.216.34", "10.0.0.7"], "mixed.example resolves to 10.0.0.7, a private address"],
    ["v6.example", ["::ffff:169.254.169.254"], "a cloud-metadata address (169.254.169.254/32)"],
    ["ula.example", ["fd12::1"], "a unique-local address (fc00::/7)"],
  ])("refuses %s when any address it resolves to is refused", async (host, addresses, reason) => {
    const { err } = await lookupWith(egressLookup(policy(), fakeDns({ [host]: addresses }).resolve), host);
    expect(err).toBeInstanceOf(EgressRefusedError);
    expect(err?.message).toContain(reason);
  });

  it("refuses a local name without asking DNS, and skips the check for a name the operator allowed", async () => {
    const dns = fakeDns({ "mcp.internal": ["10.1.2.3"] });
    const { err } = await lookupWith(egressLookup(policy(), dns.resolve), "localhost");
    expect(err).toBeInstanceOf(EgressRefusedError);
    expect(dns.asked).toEqual([]);
    expect(
      (await lookupWith(egressLookup(policy("mcp.internal"), dns.resolve), "mcp.internal")).err,
    ).toBeNull();
  });

  it("passes resolver errors through", async () => {
    const { err } = await lookupWith(egressLookup(policy(), fakeDns({}).resolve), "nowhere.example");
    expect(err?.code).toBe("ENOTFOUND");
  });
});

describe("the egress fetch against loopback listeners", () => {
  const servers: Server[] = [];
  afterEach(() => {
    for (const s of servers.splice(0)) {
      s.closeAllConnections();
      s.close();
    }
  });

  /** A loopback listener that counts connections and answers with `handler`. */
  async function listener(handler: Parameters<typeof createServer>[1] = (_q, r) => r.end("hello")) {
    const server = createServer(handler!);
    const seen = { connections: 0, port: 0 };
    server.on("connection", () => seen.connections++);
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const addr = server.address();
    seen.port = typeof addr === "object" && addr ? addr.port : 0;
    return seen;
  }

  it("refuses 127.0.0.1 and localhost before connecting; EGRESS_ALLOW=127.0.0.1/32 lets it through", async () => {
    const seen = await listener();
    const strict = egressClient(policy());
    for (const host of ["127.0.0.1", "localhost", "[::ffff:127.0.0.1]"]) {
      await expect(strict.fetch(`http://${host}:${seen.port}/`)).rejects.toBeInstanceOf(EgressRefusedError);
    }
    expect(seen.connections).toBe(0);
    const allowed = egressClient(policy("127.0.0.1/32"));
    const res = await allowed.fetch(`http://127.0.0.1:${seen.port}/`, { method: "POST", body: "x" });
    expect([res.status, await res.text()]).toEqual([200, "hello"]);
    expect(seen.connections).toBe(1);
    strict.close();
    allowed.close();
  });

  it("checks a name's resolved address at connect time", async () => {
    const seen = await listener();
    const p = policy();
    const dns = fakeDns({ "mcp.test": ["127.0.0.1"] });
    const client = egressClient(p, { lookup: egressLookup(p, dns.resolve) });
    const err = await client.fetch(`http://mcp.test:${seen.port}/`).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EgressRefusedError);
    expect((err as Error).message).toContain("mcp.test resolves to 127.0.0.1, a loopback address");
    expect([dns.asked, seen.connections]).toEqual([["mcp.test"], 0]);
    client.close();
  });

  it("never follows a redirect itself; following it means a new, checked request", async () => {
    const target = await listener();
    const redirector = await listener((_q, r) =>
      r.writeHead(307, { location: `http://127.0.0.1:${target.port}/` }).end(),
    );
    const p = policy("allowed.test");
    const client = egressClient(p, {
      lookup: egressLookup(p, fakeDns({ "allowed.test": ["127.0.0.1"] }).resolve),
    });
    const res = await client.fetch(`http://allowed.test:${redirector.port}/`, { redirect: "follow" });
    expect([res.status, res.headers.get("location")]).toEqual([307, `http://127.0.0.1:${target.port}/`]);
    await expect(client.fetch(res.headers.get("location")!)).rejects.toBeInstanceOf(EgressRefusedError);
    expect([redirector.connections, target.connections]).toEqual([1, 0]);
    client.close();
  });
});
