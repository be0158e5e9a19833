/**
 * Attack 7, the sandbox's identity on the host: its uid (after any user-namespace mapping) must
 * be no host user's and not root, and /proc/self/mountinfo must not show where the workspace
 * lives on the host.
 */
import { readFileSync, realpathSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { harnessFor, newAttacker, runtimes } from "./support.js";

/** The uids of the host's users. */
function hostUsers(): Map<number, string> {
  const users = new Map<number, string>();
  for (const line of readFileSync("/etc/passwd", "utf8").split("\n")) {
    const [name, , uid] = line.split(":");
    if (name && uid) users.set(Number(uid), name);
  }
  return users;
}

/** `uid` as the host sees it, through the lines of /proc/self/uid_map (inside, outside, count). */
function onHost(uid: number, uidMap: string): number {
  for (const line of uidMap.trim().split("\n")) {
    const [inside, outside, count] = line.trim().split(/\s+/).map(Number) as [number, number, number];
    if (uid >= inside && uid < inside + count) return outside + (uid - inside);
  }
  return -1; // unmapped: the overflow uid on the host, no one's
}

describe.each(runtimes)("containment under %s: the sandbox is nobody on the host", (runtime) => {
  const h = harnessFor(runtime);

  it("runs as a uid that is neither root nor any host user's", async () => {
    const a = await newAttacker(h(), { allow: ["Bash"] });
    const { out } = await a.bash("id -u; echo --; cat /proc/self/uid_map");
    const [id = "", uidMap = ""] = out.split("--\n");
    const uid = onHost(Number(id.trim()), uidMap);
    expect(uid, out).not.toBe(0);
    expect(hostUsers().get(uid), `uid ${uid} is a host user's (uid_map: ${uidMap.trim()})`).toBeUndefined();
  });

  it("mountinfo does not show the workspace's host path", async () => {
    const a = await newAttacker(h(), { allow: ["Bash"] });
    const { out } = await a.bash("cat /proc/self/mountinfo");
    const dataDir = realpathSync(h().config.DATA_DIR);
    // Fields: id, parent, dev, root (the path within its file system), mount point, …
    const workspace = out.split("\n").filter((l) => l.split(" ")[4] === "/workspace");
    expect(workspace, out).toHaveLength(1);
    expect.soft(workspace[0], "the workspace's host directory").not.toContain(dataDir);
    for (const line of out.split("\n")) expect.soft(line).not.toContain("/workspaces/");
  });
});
