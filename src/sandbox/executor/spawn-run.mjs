// A long-lived process (stdio MCP servers) on its own connection: stdin comes from later lines,
// output streams back, and closing the connection kills its group, then (`who.end`) everything
// else its uid still runs (setsid'd, double-forked) before the host is told it ended.
import { constants as osc } from "node:os";
import { StringDecoder } from "node:string_decoder";
import { reply, send, spawnAs } from "./exec-run.mjs";

const KILL_GRACE_MS = 1000;

/**
 * @param who { name, uid, gid, identity, end?() } — end() (awaited before the exit is reported)
 *   kills what the process left behind and gives its uid back
 */
export function runSpawn(sock, req, who, resolveCwd) {
  const startedAt = Date.now();
  const decoders = [new StringDecoder("utf8"), new StringDecoder("utf8")];
  let finished = false;
  let killed = false;
  let exit = null;
  let child;
  try {
    child = spawnAs(who, req, ["pipe", "pipe", "pipe"], resolveCwd);
  } catch (err) {
    return failed(err);
  }
  child.on("error", (err) => {
    if (child.pid === undefined) failed(err);
  });
  if (child.pid === undefined) return;
  child.stdin.on("error", () => {});
  child.stdout.on("data", (buf) => {
    const d = decoders[0].write(buf);
    if (d) send(sock, { t: "o", s: 1, d });
  });
  child.stderr.on("data", (buf) => {
    const d = decoders[1].write(buf);
    if (d) send(sock, { t: "o", s: 2, d });
  });

  const kill = () => {
    if (killed || finished) return;
    killed = true;
    try {
      process.kill(-child.pid, "SIGKILL");
    } catch {}
    setTimeout(() => {
      child.stdout.destroy();
      child.stderr.destroy();
      finish();
    }, KILL_GRACE_MS).unref();
  };
  sock.on("toolshed-msg", (m) => {
    if (m.op === "stdin" && typeof m.d === "string") child.stdin.write(m.d);
    else if (m.op === "eof") child.stdin.end();
    else if (m.op === "kill") kill();
  });
  sock.on("toolshed-cancel", kill);
  sock.once("close", kill);
  child.once("exit", (code, signal) => {
    exit = { code, signal };
  });
  child.once("close", (code, signal) => {
    exit ??= { code, signal };
    finish();
  });

  async function finish() {
    if (finished) return;
    finished = true;
    // The group may outlive its leader; nothing of it may keep running once the host is told.
    try {
      process.kill(-child.pid, "SIGKILL");
    } catch {}
    // Never rejects by design; were it to, the exit must still be reported (and not crash the executor).
    await who.end?.().catch(() => {});
    reply(sock, {
      t: "x",
      exitCode: exit && !killed ? (exit.code ?? 128 + (osc.signals[exit.signal] ?? 0)) : null,
      signal: exit?.signal ?? null,
      durationMs: Date.now() - startedAt,
    });
  }

  async function failed(err) {
    if (finished) return;
    finished = true;
    await who.end?.().catch(() => {});
    send(sock, { t: "o", s: 2, d: `${err.message}\n` });
    reply(sock, { t: "x", exitCode: 127, signal: null, durationMs: Date.now() - startedAt });
  }
}
