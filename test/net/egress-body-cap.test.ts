/**
 * Response bodies the host reads for a tenant (attack24a): an HTTP MCP server or a webhook
 * endpoint is the tenant's (or anyone's) server, and its answer is read into this process's
 * memory. A body past the bound fails the read; an event stream is bounded per event, so a
 * long-lived stream of small events goes on.
 */
import { createServer, type Server } from "node:http";
import { afterEach, expect, it } from "vitest";
import { loadConfig } from "../../src/config.js";
import { egressClient } from "../../src/net/egress-fetch.js";
import { EgressPolicy } from "../../src/net/egress-policy.js";

const CAP = 64 * 1024;
const servers: Server[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    s.close();
  }
});

async function listen(handler: Parameters<typeof createServer>[1]): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const addr = server.address();
  return `http://127.0.0.1:${typeof addr === "object" && addr ? addr.port : 0}/`;
}

const client = () =>
  egressClient(new EgressPolicy(loadConfig({ EGRESS_ALLOW: "127.0.0.1/32" }).EGRESS_ALLOW), {
    maxBodyBytes: CAP,
  });

it("a body past the bound fails the read, saying so", async () => {
  let sent = 0;
  const url = await listen((_q, res) => {
    res.writeHead(200, { "content-type": "application/json" });
    const piece = Buffer.alloc(16 * 1024, 0x61);
    const more = () => {
      // Four times the bound, then the server would go on: the reader must not wait for its end.
      while (sent < 4 * CAP) {
        sent += piece.length;
        if (!res.write(piece)) return void res.once("drain", more);
      }
      res.end();
    };
    more();
  });
  const c = client();
  const res = await c.fetch(url);
  await expect(res.text()).rejects.toThrow(/more than 65536 bytes/);
  c.close();
});

it("an event stream is bounded per event: many small events pass, one endless event fails", async () => {
  const events = Array.from({ length: 100 }, (_, i) => `data: ${"e".repeat(1000)}${i}\n\n`).join("");
  expect(events.length).toBeGreaterThan(CAP);
  const ok = await listen((_q, res) => {
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.end(events);
  });
  const endless = await listen((_q, res) => {
    res.writeHead(200, { "content-type": "text/event-stream" });
    // Data lines without the blank line that ends an event: the parser would hold them all.
    res.end(Array.from({ length: 200 }, () => `data: ${"x".repeat(1000)}\n`).join(""));
  });
  const c = client();
  expect(await (await c.fetch(ok)).text()).toBe(events);
  await expect((await c.fetch(endless)).text()).rejects.toThrow(/more than 65536 bytes/);
  c.close();
});
