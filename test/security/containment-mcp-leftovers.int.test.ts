/**
 * attack25a: what a stdio MCP server's identity left within the agent's reach.
 * 1. Where it starts: `python3 -m x` and `node -e "require('x')"` load modules from the working
 *    directory first. Started in /workspace (which the agent writes), the agent's module ran as
 *    the MCP identity, with the server's environment (the tenant's secrets). It now starts in
 *    its private home unless the tenant says `cwd`.
 * 2. What it leaves running: a server's `setsid` or double-forked child outlived the server, with
 *    the old secrets in its environment, until the container stopped. Each running server now has
 *    a uid of its own, and everything of that uid is killed when the server ends; the session's
 *    other servers (other uids) are untouched.
 * attack26b: 3. What it leaves in the shared scratch places: a server's private files in /tmp and
 *    /dev/shm, and its System V message queues and semaphores, stayed after it ended, and the
 *    next server given its uid (with other secrets) could read them. They now go with the server.
 */
import { describe, expect, it } from "vitest";
import { type Attacker, globFinds, harnessFor, newAttacker, nonce, runtimes } from "./support.js";

const addServer = async (a: Attacker, body: Record<string, unknown>) => {
  const res = await a.h.call("POST", `/v1/tenants/${a.tenantId}/mcp-servers`, {
    key: a.adminKey,
    body: { transport: "stdio", ...body },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
};

/** Lists the session's tools, which starts its stdio servers in the sandbox; the tool names. */
const listTools = async (a: Attacker): Promise<string[]> => {
  const res = await a.h.call("GET", `/v1/sessions/${a.sid}/tools`, { key: a.agentKey });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.tools.map((t: { name: string }) => t.name);
};

describe.each(runtimes)("containment under %s: a stdio MCP server's leftovers", (runtime) => {
  const h = harnessFor(runtime);

  it("does not load a module the agent planted in the workspace", async () => {
    const a = await newAttacker(h(), { allow: ["Bash", "Write", "Glob"] });
    const tag = nonce();
    const mark = (file: string) =>
      `open("/workspace/${file}","w").write("ran as " + str(__import__("os").getuid()))`;
    // The agent plants a Python module and a Node package where a server started by name looks first.
    await a.callAndWait("Write", { file_path: `/workspace/srv_${tag}.py`, content: `${mark("ran-py")}\n` });
    await a.callAndWait("Write", {
      file_path: `/workspace/opt_${tag}.py`,
      content: `${mark("ran-optin")}\n`,
    });
    await a.callAndWait("Write", {
      file_path: `/workspace/node_modules/srv-${tag}/index.js`,
      content: `require("fs").writeFileSync("/workspace/ran-node", "ran as " + process.getuid());\n`,
    });
    await addServer(a, { name: "py", command: "python3", args: ["-m", `srv_${tag}`] });
    await addServer(a, { name: "nd", command: "node", args: ["-e", `require("srv-${tag}")`] });
    // The opt-in: a server that needs the workspace says so, and then it does start there.
    await addServer(a, { name: "optin", command: "python3", args: ["-m", `opt_${tag}`], cwd: "/workspace" });
    await listTools(a);
    const ran = await globFinds(a, "ran-*");
    const health = await a.h.call("GET", `/v1/tenants/${a.tenantId}/mcp-servers`, { key: a.adminKey });
    expect(ran, JSON.stringify(health.body)).not.toContain("ran-py");
    expect(ran).not.toContain("ran-node");
    expect(ran).toContain("ran-optin");
    expect((await a.bash("cat /workspace/ran-optin")).out).toMatch(/^ran as \d+$/);
  });

  it("kills what a server left running when it ends, and only that server's", async () => {
    const a = await newAttacker(h(), { allow: ["Bash"] });
    const server = "/opt/mcp/memory.mjs";
    // Each server leaves a setsid'd daemon and a double-forked one behind, then serves.
    const leaving = (n: string) => [
      "-c",
      `setsid sleep 77${n}1 </dev/null >/dev/null 2>&1 & (sleep 77${n}2 </dev/null >/dev/null 2>&1 &); exec node ${server}`,
    ];
    await addServer(a, { name: "one", command: "sh", args: leaving("1") });
    await addServer(a, { name: "two", command: "sh", args: leaving("2") });
    let names: string[] = [];
    for (let i = 0; i < 40 && !names.includes("mcp__two__read_graph"); i++) {
      if (i > 0) await new Promise((r) => setTimeout(r, 250));
      names = await listTools(a);
    }
    expect(names).toEqual(expect.arrayContaining(["mcp__one__read_graph", "mcp__two__read_graph"]));
    // The sleeps each server left, by uid: "uid args" lines.
    const sleeps = async () =>
      (await a.bash("ps -eo uid=,args=")).out
        .split("\n")
        .map((l) => l.trim().split(/\s+/))
        .filter(([, cmd, arg]) => cmd === "sleep" && /^77\d\d$/.test(arg ?? ""))
        .map(([uid, , arg]) => ({ uid, n: arg }))
        .sort((x, y) => x.n!.localeCompare(y.n!));
    let seen = await sleeps();
    for (let i = 0; i < 40 && seen.length < 4; i++) {
      await new Promise((r) => setTimeout(r, 250));
      seen = await sleeps();
    }
    expect(seen.map((s) => s.n)).toEqual(["7711", "7712", "7721", "7722"]);
    // Two servers, two uids: what one leaves can be killed without touching the other.
    expect(new Set(seen.map((s) => s.uid)).size).toBe(2);
    expect(seen[0]!.uid).toBe(seen[1]!.uid);
    expect(seen[2]!.uid).toBe(seen[3]!.uid);

    // The tenant deletes server one: its process ends, and so does everything it left.
    const del = await a.h.call("DELETE", `/v1/tenants/${a.tenantId}/mcp-servers/one`, { key: a.adminKey });
    expect(del.status).toBe(204);
    for (let i = 0; i < 40 && seen.some((s) => s.n!.startsWith("771")); i++) {
      await new Promise((r) => setTimeout(r, 250));
      seen = await sleeps();
    }
    expect(seen.map((s) => s.n)).toEqual(["7721", "7722"]);
    // Server two still serves.
    const graph = await a.callAndWait("mcp__two__read_graph", {});
    expect(graph.status, JSON.stringify(graph)).toBe("succeeded");

    // Re-created (deleted and added again under its name): the old one's leftovers go, the new one's start.
    const gone = await a.h.call("DELETE", `/v1/tenants/${a.tenantId}/mcp-servers/two`, { key: a.adminKey });
    expect(gone.status).toBe(204);
    await addServer(a, { name: "two", command: "sh", args: leaving("3") });
    for (let i = 0; i < 40 && seen.map((s) => s.n).join() !== "7731,7732"; i++) {
      await listTools(a);
      await new Promise((r) => setTimeout(r, 250));
      seen = await sleeps();
    }
    expect(seen.map((s) => s.n)).toEqual(["7731", "7732"]);
  });

  it("removes what a server left in /tmp, /dev/shm and System V IPC when it ends, and only that server's", async () => {
    const a = await newAttacker(h(), { allow: ["Bash"] });
    const tag = nonce();
    // Each server leaves private files (a directory it made unwritable too), a queue and a semaphore.
    const leaving = (n: string) => [
      "-c",
      `umask 077; echo s > /tmp/left-${n}-${tag}; mkdir /dev/shm/d-${n}-${tag}; echo s > /dev/shm/d-${n}-${tag}/f; ` +
        `chmod 500 /dev/shm/d-${n}-${tag}; ipcmk -Q >/dev/null; ipcmk -S 1 >/dev/null; exec node /opt/mcp/memory.mjs`,
    ];
    await addServer(a, { name: "one", command: "sh", args: leaving("1") });
    await addServer(a, { name: "two", command: "sh", args: leaving("2") });
    // "path owner" of the servers' files and "kind owner" of every IPC object, as the agent sees
    // them (gVisor lists no message queues: there, semaphores only).
    const left = async () =>
      (
        await a.bash(
          `stat -c '%n %U' /tmp/left-* /dev/shm/d-* 2>/dev/null | sed 's/-${tag}//'; ` +
            `ipcs -q | awk '/^0x/ { print "msg", $3 }'; ipcs -s | awk '/^0x/ { print "sem", $3 }'`,
        )
      ).out
        .trim()
        .split("\n")
        .sort();
    const ipc = runtime === "runc" ? ["msg", "sem"] : ["sem"];
    const each = 2 + ipc.length;
    let seen: string[] = [];
    for (let i = 0; i < 40 && seen.length < 2 * each; i++) {
      if (i === 0) await listTools(a);
      else await new Promise((r) => setTimeout(r, 250));
      seen = await left();
    }
    const ownerOf = (n: string) => seen.find((l) => l.startsWith(`/tmp/left-${n} `))?.split(" ")[1];
    const [one, two] = [ownerOf("1"), ownerOf("2")];
    expect(one && two && one !== two, seen.join(" | ")).toBe(true);
    const of = (owner: string | undefined, n: string) => [
      `/dev/shm/d-${n} ${owner}`,
      `/tmp/left-${n} ${owner}`,
      ...ipc.map((kind) => `${kind} ${owner}`),
    ];
    expect(seen).toEqual([...of(one, "1"), ...of(two, "2")].sort());

    const del = await a.h.call("DELETE", `/v1/tenants/${a.tenantId}/mcp-servers/one`, { key: a.adminKey });
    expect(del.status).toBe(204);
    for (let i = 0; i < 40 && seen.length > each; i++) {
      await new Promise((r) => setTimeout(r, 250));
      seen = await left();
    }
    expect(seen).toEqual(of(two, "2").sort());
  });
});
