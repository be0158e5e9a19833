// Who runs what inside a sandbox. The executor itself is the container's uid 0 holding only
// CAP_SETUID, CAP_SETGID, CAP_KILL and CAP_CHOWN; everything it starts runs under an unprivileged uid that can
// neither signal, trace nor read the environment of the executor or of another identity:
//   agent   the agent's commands (Bash, approved or allowed by a rule) and its file operations
//   reader  commands auto-allowed because they are read-only (one uid of a pool per call, so a
//           call's leftovers can be killed exactly): may read, cannot write the workspace or home
//   editor  commands auto-allowed by accept_edits: the agent's group (so it may write the workspace,
//           which is group-writable) but not its uid (so not its home); what it creates is handed
//           back to the agent when the call ends, and nothing it starts outlives the call
//   mcp     stdio MCP servers, whose environment carries the tenant's secrets: one uid of a pool
//           per running server (so a server's leftovers, setsid'd or double-forked, can be killed
//           exactly, without touching the session's other servers), each with a fresh private home
// The numbers come from the host (executor.json); the image only names the defaults.

export const DEFAULT_IDENTITIES = {
  agent: { uid: 100000, gid: 100000, home: "/home/agent" },
  editor: { uid: 100003, gid: 100000, home: "/nonexistent" },
  // The executor replaces the home with a private directory it makes at start (executor.mjs).
  // `uid` is the pool's first, then base .. base + count - 2 (a host without a pool: `uid` alone).
  mcp: { uid: 100002, gid: 100000, home: "/nonexistent", base: 100032, count: 64 },
  readers: { base: 100010, count: 16, gid: 100001, home: "/nonexistent" },
};

/** Validates the host's identity table; any field missing falls back to the default. */
export function identitiesFrom(config) {
  const ids = structuredClone(DEFAULT_IDENTITIES);
  const table = config?.identities ?? {};
  for (const name of ["agent", "editor", "mcp"]) {
    const t = table[name];
    if (t && isUid(t.uid) && isUid(t.gid)) Object.assign(ids[name], { uid: t.uid, gid: t.gid });
  }
  const m = table.mcp;
  if (m && isUid(m.base) && Number.isInteger(m.count) && m.count >= 1 && m.count <= 256)
    Object.assign(ids.mcp, { base: m.base, count: m.count });
  else if (m) ids.mcp.count = 1;
  const r = table.readers;
  if (r && isUid(r.base) && isUid(r.gid) && Number.isInteger(r.count) && r.count >= 1 && r.count <= 256) {
    Object.assign(ids.readers, { base: r.base, count: r.count, gid: r.gid });
  }
  return ids;
}

function isUid(n) {
  // Never root, never the nobody/overflow ids.
  return Number.isInteger(n) && n >= 1000 && n < 65534 * 65536 && n !== 65534;
}

/**
 * Hands out uids, one per running read-only call (readerUids) or stdio MCP server (mcpUids);
 * `lease` waits when all are taken, `take` does not.
 */
export class UidPool {
  constructor(uids) {
    this.free = [...uids];
    this.waiting = [];
  }

  /** A free uid now, or undefined (a long-lived process must not wait for another to end). */
  take() {
    return this.free.shift();
  }

  async lease() {
    const uid = this.free.shift();
    if (uid !== undefined) return uid;
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  release(uid) {
    const next = this.waiting.shift();
    if (next) next(uid);
    else this.free.push(uid);
  }
}

/** The uids read-only calls run as. */
export function readerUids(readers) {
  return Array.from({ length: readers.count }, (_, i) => readers.base + i);
}

/** The uids stdio MCP servers run as: the identity's own uid, then its pool's. */
export function mcpUids(mcp) {
  return [mcp.uid, ...Array.from({ length: mcp.count - 1 }, (_, i) => mcp.base + i)];
}
