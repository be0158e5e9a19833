// Finding and ending every process of one uid. A call's processes may leave its process group
// (setsid, double fork, nohup): the uid is what they cannot leave, so that is what we kill by.
import { spawn } from "node:child_process";
import { closeSync, openSync, readdirSync, readFileSync, readSync } from "node:fs";
import { forkServer } from "./fork-server.mjs";
import { userEnv } from "./user-env.mjs";

// The head of /proc/<pid>/status: its Name, State and Uid lines come within it.
const STATUS_HEAD = Buffer.alloc(1024);

function statusHead(pid) {
  const fd = openSync(`/proc/${pid}/status`, "r");
  try {
    return STATUS_HEAD.toString("latin1", 0, readSync(fd, STATUS_HEAD, 0, STATUS_HEAD.length, 0));
  } finally {
    closeSync(fd);
  }
}

/**
 * pid → short command line of every live process whose real uid is `uid` (an identity whose
 * commands the fork server starts while there is one: Node's spawn only once it is gone; with
 * `spawned`, one Node's spawn starts, stdio MCP servers, whose orphans the fork server never sees).
 */
export function processesOf(uid, spawned = false) {
  const found = new Map();
  // Each such process is one the fork server started or below one: none alive, none to look for.
  // Proven (`proven`): the kernel's own list, not a scan of /proc, said so.
  if (!spawned && forkServer.nothingAlive()) {
    found.proven = true;
    return found;
  }
  let entries;
  try {
    entries = readdirSync("/proc");
  } catch {
    return found;
  }
  // Root's for as long as they live, so never read: the init, this process, and the fork server
  // (our child: its pid cannot be reused before we reap it, which also forgets it).
  const own = [1, process.pid, forkServer.pid];
  for (const name of entries) {
    const c = name.charCodeAt(0);
    if (c < 48 || c > 57 || own.includes(Number(name))) continue;
    let status;
    try {
      status = statusHead(name);
    } catch {
      // Gone before it was read: it may have forked first, a child the listing did not hold.
      found.vanished = true;
      continue;
    }
    const m = /\nUid:\s+(\d+)/.exec(status);
    if (!m || Number(m[1]) !== uid) continue;
    // Zombies hold nothing and are reaped (by the fork server or init); they are not "still running".
    // But one of the uid died since the listing, as one that went: it may have forked first.
    if (/\nState:\s+Z/.test(status)) {
      found.vanished = true;
      continue;
    }
    try {
      const cmd = readFileSync(`/proc/${name}/cmdline`, "latin1").replaceAll("\0", " ").trim();
      found.set(Number(name), cmd.slice(0, 200));
    } catch {
      found.vanished = true;
    }
  }
  return found;
}

/**
 * SIGKILLs every process of `uid`. `kill -9 -1` run *as that uid* signals all of them at once
 * while the kernel holds the task list, so a fork loop cannot outrun it. When no process can be
 * started (the pids limit is reached) the executor, which holds CAP_KILL, kills pid by pid until
 * none is left. Resolves with how many processes there were.
 */
export async function killUid(uid, gid, spawned = false) {
  let seen = 0;
  for (let pass = 0; pass < 50; pass++) {
    const left = processesOf(uid, spawned);
    if (left.proven) return seen;
    // A scan of /proc proves nothing empty: one in which a listed process went away before it was
    // read may have missed a child it forked after the listing, and a process that hops from pid
    // to pid (fork, then exit) upwards can stay ahead of the listing and never be listed at all
    // (reader-leftover-race.int.test.ts caught one, round 16). Looked at again while listed ones
    // vanish (twice at most); when a scan finds none, the uid is killed whole anyway (`kill -9 -1`
    // as the uid signals all of its processes while the kernel holds the task list: no fork
    // outruns it).
    if (left.size === 0) {
      if (left.vanished && pass < 2) continue;
      await killAllAs(uid, gid);
      return seen;
    }
    seen = Math.max(seen, left.size);
    const started = pass < 3 && (await killAllAs(uid, gid));
    if (started) continue;
    stopThenKill(uid, left, spawned);
  }
  return seen;
}

/**
 * Ends the listed processes of `uid` and those they start meanwhile, pid by pid, without a fork
 * (the pids limit may be full: that is when `kill -9 -1` as the uid cannot be started). Killed one
 * by one, a fork loop refills each slot a death frees faster than we empty them (CI, round 17), so
 * every one is stopped first: a stopped process forks nothing and frees no slot. Those born
 * before their parent stopped are found and stopped too, then all are killed.
 */
function stopThenKill(uid, left, spawned) {
  const stopped = new Set();
  let batch = [...left.keys()];
  for (let round = 0; round < 8 && batch.length > 0; round++) {
    for (const pid of batch) {
      try {
        process.kill(pid, "SIGSTOP");
        stopped.add(pid);
      } catch {}
    }
    batch = [...processesOf(uid, spawned).keys()].filter((pid) => !stopped.has(pid));
  }
  for (const pid of stopped) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {}
  }
}

/** Runs `kill -9 -1` as `uid` (through the fork server when there is one); false when it could not be started. */
async function killAllAs(uid, gid) {
  const viaServer = await forkServer.killAll(uid, gid);
  if (viaServer !== null) return viaServer;
  return new Promise((resolve) => {
    let killer;
    try {
      killer = spawn("/bin/bash", ["-c", "kill -9 -1"], { uid, gid, stdio: "ignore", env: {} });
    } catch {
      resolve(false);
      return;
    }
    killer.once("error", () => resolve(false));
    killer.once("exit", () => resolve(true));
  });
}

/**
 * Gives the agent what an editor call created in the workspace (the editor writes through the
 * agent's group, so the files are already the agent's to write, but not to chmod). Runs as the
 * executor (CAP_CHOWN); -xdev keeps it inside the workspace's filesystem, -h off symlinks' targets.
 */
export function handBack(editor, agent) {
  return new Promise((resolve) => {
    const args = [
      "/workspace",
      "-xdev",
      "-uid",
      String(editor.uid),
      "-exec",
      "chown",
      "-h",
      `${agent.uid}:${agent.gid}`,
      "{}",
      "+",
    ];
    let find;
    try {
      find = spawn("find", args, { stdio: "ignore", env: { PATH: "/usr/bin:/bin" } });
    } catch {
      resolve();
      return;
    }
    find.once("error", () => resolve());
    find.once("exit", () => resolve());
  });
}

// Run as the uid: every entry of it in the shared scratch mounts (modes it set undone first, so a
// 0500 directory goes too), then the System V objects it owns, one by one: gVisor lets any uid
// remove another's, so `ipcrm -a` would not be exact there. -xdev: each mount alone.
const SWEEP = `for d in /tmp /dev/shm; do
  find "$d" -xdev -mindepth 1 -uid "$1" -prune -exec chmod -R u+rwx {} + 2>/dev/null
  find "$d" -xdev -mindepth 1 -uid "$1" -prune -exec rm -rf {} + 2>/dev/null
done
me=$(id -un 2>/dev/null || id -u)
for kind in q s m; do
  ipcs -$kind -c 2>/dev/null | awk -v me="$me" '$1 ~ /^[0-9]+$/ && $5 == me { print $1 }' |
    while read -r id; do ipcrm -$kind "$id" 2>/dev/null; done
done
exit 0`;

/**
 * Removes what `uid` still owns in /tmp, /dev/shm and System V IPC, as that uid (the executor has
 * no DAC override). Run once nothing of the uid runs, before the uid is leased again.
 */
export function sweepUid(uid, gid) {
  return new Promise((resolve) => {
    let sh;
    try {
      sh = spawn("/bin/sh", ["-c", SWEEP, "sh", String(uid)], {
        uid,
        gid,
        stdio: "ignore",
        // The commands' own environment: under gVisor, find and rm need its statx preload.
        env: userEnv({ home: "/nonexistent" }, "sweep"),
      });
    } catch {
      resolve();
      return;
    }
    sh.once("error", resolve);
    sh.once("exit", resolve);
  });
}
