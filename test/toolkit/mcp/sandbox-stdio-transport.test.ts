/**
 * A stdio MCP server's output on the host (attack24a): its lines are parsed in the worker's
 * process, so a server that writes without end and never a newline must not grow the worker's
 * memory without bound. Past the cap the server is killed and the client told why.
 */
import { expect, it } from "vitest";
import type { Sandbox, SandboxProcess, SpawnRequest } from "../../../src/sandbox/sandbox.js";
import {
  MAX_MESSAGE_BYTES,
  SandboxStdioTransport,
} from "../../../src/toolkit/mcp/sandbox-stdio-transport.js";

function fakeSandbox() {
  const state = { req: undefined as SpawnRequest | undefined, kills: 0, written: [] as string[] };
  let exit: (e: { exitCode: number | null; signal: null; lost: boolean }) => void = () => {};
  const proc: SandboxProcess = {
    write: (d) => void state.written.push(d),
    end: () => {},
    kill: () => {
      state.kills++;
      exit({ exitCode: null, signal: null, lost: false });
    },
    exited: new Promise((r) => (exit = r)),
  };
  const sandbox = {
    spawnProcess: async (req: SpawnRequest) => {
      state.req = req;
      return proc;
    },
  } as unknown as Sandbox;
  return { sandbox, state };
}

it("a server that writes past the cap without a newline is killed, with an error saying why", async () => {
  const { sandbox, state } = fakeSandbox();
  const t = new SandboxStdioTransport(sandbox, { argv: ["flood"] });
  const errors: Error[] = [];
  let closed = false;
  t.onerror = (e) => void errors.push(e);
  t.onclose = () => {
    closed = true;
  };
  await t.start();
  const chunk = "x".repeat(64 * 1024);
  // Twice the cap, as a flooding server sends it: pipe-sized pieces.
  for (let sent = 0; sent < 2 * MAX_MESSAGE_BYTES && !closed; sent += chunk.length) {
    state.req!.onOutput("stdout", chunk);
  }
  expect(closed).toBe(true);
  expect(state.kills).toBe(1);
  expect(errors.map((e) => e.message).join("\n")).toMatch(/longer than \d+ bytes/);
});

it("messages up to the cap, split across pieces, still arrive", async () => {
  const { sandbox, state } = fakeSandbox();
  const t = new SandboxStdioTransport(sandbox, { argv: ["big"] });
  const got: unknown[] = [];
  t.onmessage = (m) => void got.push(m);
  await t.start();
  const big = JSON.stringify({ jsonrpc: "2.0", id: 1, result: { pad: "y".repeat(MAX_MESSAGE_BYTES - 100) } });
  expect(big.length).toBeLessThanOrEqual(MAX_MESSAGE_BYTES);
  for (let i = 0; i < big.length; i += 65_536) state.req!.onOutput("stdout", big.slice(i, i + 65_536));
  state.req!.onOutput("stdout", '\n{"jsonrpc":"2.0","id":2,"result":{}}\n');
  expect(got.map((m) => (m as { id: number }).id)).toEqual([1, 2]);
  expect(state.kills).toBe(0);
});
