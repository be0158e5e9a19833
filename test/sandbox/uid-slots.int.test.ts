// suite: parallel — its containers and slot labels are its own (the engine-wide slot count only grows)
/**
 * uid28: a host uid range per sandbox (SANDBOX_UID_SLOTS). Without it every sandbox's agent is
 * host uid 100000, so a per-uid kernel counter is one for all tenants of a host (attack27b:
 * A's SHM_LOCK of 8 MiB makes B's fail). With it each container has a slot of 128 uids of its
 * own, kept across stops and re-creation, and a workspace that comes back under another slot is
 * re-owned to it.
 */
import { readFileSync } from "node:fs";
import { chown, lchown, lstat, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import Dockerode from "dockerode";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LABEL_HARDENING } from "../../src/sandbox/container-spec.js";
import { type Sandbox, SandboxUnavailableError } from "../../src/sandbox/sandbox.js";
import { sessionPaths } from "../../src/sandbox/session-paths.js";
import { LABEL_UID_SLOT, UID_SLOT_WIDTH, type UidSlots } from "../../src/sandbox/uid-slots.js";
import { RUNTIMES } from "../security/runtimes.js";
import {
  createTestProvider,
  createWarmTestProvider,
  docker,
  serviceContainers,
  sh,
  TEST_IMAGE,
  type TestProvider,
} from "./harness.js";

const SLOTS: UidSlots = { base: 1_000_000_000, count: 4096 };

const out = async (sb: Sandbox, command: string) => {
  const r = await sb.exec(sh(command));
  expect(r.exitCode, `${command}: ${r.stdout}${r.stderr}`).toBe(0);
  return r.stdout.trim();
};

const slotLabel = async (serviceId: string, sessionId: string) =>
  (await serviceContainers(serviceId, sessionId))[0]?.Labels[LABEL_UID_SLOT];

// attack27b's probe: `hold-shm` locks 8 MiB with SHM_LOCK (charged to the uid's RLIMIT_MEMLOCK,
// host-wide), tries 1 MiB more, and keeps the first in a leftover process; `probe-shm` locks 1 MiB.
const SHARED_KERNEL = readFileSync(new URL("../security/scripts/shared-kernel.py", import.meta.url));

describe.each(RUNTIMES)("a uid range per sandbox under %s", (runtime) => {
  let t: TestProvider;

  beforeAll(async () => {
    t = await createTestProvider({ runtime, uidSlots: SLOTS });
  });
  afterAll(async () => t?.cleanup());

  const acquire = (sessionId: string) => t.provider.acquire({ sessionId, tenantId: `ten_${sessionId}` });

  it("gives two sessions disjoint ranges, each naming its agent", async () => {
    const [a, b] = await Promise.all([acquire("ses_a"), acquire("ses_b")]);
    const ids = await Promise.all(
      [a, b].map((sb) =>
        out(
          sb,
          "touch f; id -u; id -g; whoami; id -gn; ls -l f | awk '{print $3, $4}'; " +
            `python3 -c "import os, pwd; print(pwd.getpwuid(os.getuid()).pw_name)"`,
        ),
      ),
    );
    const uids = ids.map((text) => {
      const [uid, gid, ...names] = text.split("\n");
      expect(names).toEqual(["agent", "agent", "agent agent", "agent"]);
      expect(gid).toBe(uid);
      return Number(uid);
    });
    for (const uid of uids) {
      expect(uid).toBeGreaterThanOrEqual(SLOTS.base);
      expect((uid - SLOTS.base) % UID_SLOT_WIDTH).toBe(0);
    }
    expect(Math.abs(uids[0]! - uids[1]!)).toBeGreaterThanOrEqual(UID_SLOT_WIDTH);
    // The slot is on the container (what a re-created one or a restarted worker goes by).
    expect(Number(await slotLabel(t.serviceId, "ses_a"))).toBe((uids[0]! - SLOTS.base) / UID_SLOT_WIDTH);
  });

  // attack27b's reproduction: locked System V memory is charged to the uid host-wide.
  it.skipIf(runtime === "runsc")(
    "leaves another sandbox its own locked memory while one holds all of its own",
    async () => {
      const [a, b] = await Promise.all([acquire("ses_shm_a"), acquire("ses_shm_b")]);
      await Promise.all([a, b].map((sb) => sb.writeFile("/tmp/sk.py", SHARED_KERNEL)));
      // A's own limit is spent (so the hold is real)...
      expect(await out(a, "python3 /tmp/sk.py hold-shm 30")).toBe("shm ok\nmore ENOMEM");
      // ...and B's is B's.
      expect(await out(b, "python3 /tmp/sk.py probe-shm")).toBe("shm ok");
    },
  );

  it("keeps the range when its stopped container is made again, and the workspace stays the agent's", async () => {
    const sb = await acquire("ses_keep");
    await out(sb, "mkdir -p d && echo A > d/a.txt");
    const uid = await out(sb, "id -u");
    await t.provider.stop("ses_keep");
    // A hardening change: the stopped container is made again (as lifecycle.int.test.ts does).
    const [old] = await serviceContainers(t.serviceId, "ses_keep");
    const info = await docker.getContainer(old!.Id).inspect();
    await docker.getContainer(old!.Id).remove({ v: true });
    await docker.createContainer({
      ...info.Config,
      name: info.Name.slice(1),
      Labels: { ...info.Config.Labels, [LABEL_HARDENING]: "before" },
      HostConfig: info.HostConfig,
    });
    const again = await acquire("ses_keep");
    expect(await out(again, "id -u")).toBe(uid);
    expect(await out(again, "echo B >> d/a.txt && find . -printf '%U %G\\n' | sort -u")).toBe(
      `${uid} ${uid}`,
    );
    // A session whose container is gone altogether comes back under the range its files carry.
    await t.provider.stop("ses_keep");
    await docker.getContainer((await serviceContainers(t.serviceId, "ses_keep"))[0]!.Id).remove({ v: true });
    expect(await out(await acquire("ses_keep"), "id -u; cat d/a.txt")).toBe(`${uid}\nA\nB`);
  });

  it("re-owns a workspace whose range another container holds now", async () => {
    const sb = await acquire("ses_move");
    await out(sb, "mkdir -p src && echo x > src/x && ln -s src/x link && chmod 2775 src");
    // attack31: kinds a walk must not open (a FIFO would block it, a socket refuse it), a hard link
    // within the workspace; none from outside it (another mount: EXDEV) and no device node (no
    // CAP_MKNOD) can be made, so the walk's lchown reaches no host file through one.
    const made = await out(
      sb,
      "mkfifo src/p && python3 -c 'import socket; socket.socket(socket.AF_UNIX).bind(\"src/s\")' && ln src/x hard; " +
        "for f in /etc/passwd /etc/hostname /usr/bin/id /proc/self/status /run/toolshed/executor.json; do ln $f src/l 2>/dev/null && echo linked $f; done; " +
        "mknod src/null c 1 3 2>/dev/null && echo mknod; mknod src/blk b 7 0 2>/dev/null && echo mknod; " +
        // The slot's account files: read-only binds of root's run directory.
        "for f in /etc/passwd /etc/group; do echo 'x:x:0:0::/:/bin/sh' >> $f 2>/dev/null && echo wrote $f; " +
        "mv $f /workspace/ 2>/dev/null && echo moved $f; rm -f $f 2>/dev/null; test -s $f || echo gone $f; done; echo made",
    );
    expect(made).toBe("made");
    const before = Number(await out(sb, "id -u"));
    // A file left by an MCP server's uid (the pool's offset 40), and a link, made from the host.
    const ws = sessionPaths(t.dataDir, t.serviceId, "ses_move").workspaceDir;
    await writeFile(join(ws, "left.txt"), "left");
    await chown(join(ws, "left.txt"), before + 40, before);
    await symlink("x", join(ws, "src", "rel"));
    await lchown(join(ws, "src", "rel"), before, before);
    const slot = await slotLabel(t.serviceId, "ses_move");
    await t.provider.stop("ses_move");
    await docker.getContainer((await serviceContainers(t.serviceId, "ses_move"))[0]!.Id).remove({ v: true });
    // Another container of the host holds the slot meanwhile (as after a move to another host).
    await docker.createContainer({
      Image: TEST_IMAGE,
      name: `${t.serviceId}-holder`,
      Cmd: ["true"],
      Labels: { "toolshed.service": t.serviceId, [LABEL_UID_SLOT]: slot! },
    });

    const moved = await acquire("ses_move");
    const uid = Number(await out(moved, "id -u"));
    expect(uid).not.toBe(before);
    expect(await out(moved, "find /workspace -printf '%U %G\\n' | sort -u")).toBe(
      [`${uid} ${uid}`, `${uid + 40} ${uid}`].join("\n"),
    );
    // The agent still writes its files, and the directory keeps setgid (its group for new files).
    expect(await out(moved, "echo y >> src/x && cat link && stat -c %A src")).toBe("x\ny\ndrwxrwsr-x");
    // Seen from the host: re-owned, still of their kind (gVisor keeps a FIFO and a socket in its
    // sentry, so none is on the volume there).
    const kinds = await Promise.all(
      ["src/p", "src/s", "hard"].map((f) =>
        lstat(join(ws, f)).then(
          (st) => `${st.isFIFO() ? "p" : st.isSocket() ? "s" : "-"} ${st.nlink} ${st.uid === uid}`,
          () => "absent",
        ),
      ),
    );
    expect(kinds).toEqual(
      runtime === "runc" ? ["p 1 true", "s 1 true", "- 2 true"] : ["absent", "absent", "- 2 true"],
    );
    expect((await lstat(join(ws, "src", "rel"))).uid).toBe(uid);
  });
});

describe("a workspace made before uid slots", () => {
  it("is re-owned to the session's slot at its next start", async () => {
    const legacy = await createTestProvider({ uidSlots: undefined });
    const shared = { serviceId: legacy.serviceId, dataDir: legacy.dataDir };
    let t: TestProvider | undefined;
    try {
      const sb = await legacy.provider.acquire({ sessionId: "ses_old", tenantId: "ten_old" });
      await out(sb, "echo old > old.txt");
      expect(await out(sb, "id -u")).toBe("100000");
      await legacy.provider.close();
      t = await createTestProvider({ uidSlots: SLOTS }, shared);
      const again = await t.provider.acquire({ sessionId: "ses_old", tenantId: "ten_old" });
      const uid = await out(again, "id -u");
      expect(Number(uid)).toBeGreaterThanOrEqual(SLOTS.base);
      expect(await out(again, "echo new >> old.txt && find /workspace -printf '%U\\n' | sort -u")).toBe(uid);
    } finally {
      // The shared service's containers and volumes, whichever provider got as far.
      await t?.cleanup();
      await legacy.cleanup();
    }
  });
});

// Warm containers are made before their session is known: the slot is the container's, and the
// session that claims one runs in (and makes its workspace under) that container's range.
describe("warm containers with uid slots", () => {
  let t: TestProvider;

  beforeAll(async () => {
    t = await createWarmTestProvider({ uidSlots: SLOTS });
  }, 90_000);
  afterAll(async () => t?.cleanup());

  it("each holds its own range, which the claiming session takes and comes back to", async () => {
    const warm = await serviceContainers(t.serviceId);
    const slots = warm.map((c) => Number(c.Labels[LABEL_UID_SLOT]));
    expect(new Set(slots).size).toBe(2);
    const sb = await t.provider.acquire({ sessionId: "ses_w", tenantId: "ten_w" });
    const uid = Number(await out(sb, "id -u"));
    expect(slots).toContain((uid - SLOTS.base) / UID_SLOT_WIDTH);
    expect(await out(sb, "whoami; echo kept > f && find /workspace -printf '%U\\n' | sort -u")).toBe(
      `agent\n${uid}`,
    );
    await t.provider.stop("ses_w");
    // Its next start is cold (its files carry its range, not another warm container's), and no
    // file of its workspace is left in another sandbox's range.
    const again = await t.provider.acquire({ sessionId: "ses_w", tenantId: "ten_w" });
    const now = await out(again, "id -u");
    expect(await out(again, "cat f && find /workspace -printf '%U\\n' | sort -u")).toBe(`kept\n${now}`);
    const labels = (await serviceContainers(t.serviceId)).map((c) => c.Labels[LABEL_UID_SLOT]);
    expect(new Set(labels).size).toBe(labels.length);
  }, 90_000);
});

// The slot's engine requests come before the container's own: an engine that is down must still
// read as "the sandbox did not start" (the worker then takes no new session, engine-stops).
describe("uid slots with the engine down", () => {
  it("a start fails as unavailable, naming the engine", async () => {
    const t = await createTestProvider({
      uidSlots: SLOTS,
      workspaceQuota: "off",
      docker: new Dockerode({ socketPath: "/nonexistent/docker.sock" }),
    });
    try {
      const started = t.provider.acquire({ sessionId: "ses_down", tenantId: "ten_down" });
      await expect(started).rejects.toBeInstanceOf(SandboxUnavailableError);
      await expect(started).rejects.toThrow(/Docker engine is unreachable \(ENOENT\)/);
    } finally {
      await t.provider.close();
    }
  });
});
