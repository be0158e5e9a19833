// The executor's file operations, run as the agent: started by the executor as uid 0, it keeps
// its real and saved uid 0 but sets its effective (and so filesystem) uid to the agent's. Files it
// creates belong to the agent and it can open only what the agent could, yet the agent cannot
// signal or trace it (that needs a matching real or saved uid). Requests come over the IPC channel.
import { readFile, realPath, statOrNull, writeFile } from "./file-ops.mjs";

const [uid, gid] = process.argv.slice(2).map(Number);

if (!Number.isInteger(uid) || !Number.isInteger(gid) || uid === 0) {
  console.error("file-helper: bad uid/gid");
  process.exit(2);
}
process.setgroups([gid]);
process.setegid(gid);
process.seteuid(uid);
process.umask(0o002);

const OPS = {
  readFile: (m) => readFile(m.path, m.maxBytes),
  writeFile: (m) => writeFile(m.path, Buffer.from(m.data, "base64")),
  stat: async (m) => ({ t: "r", stat: await statOrNull(m.path) }),
  realPath: async (m) => ({ t: "r", path: await realPath(m.path) }),
};

process.on("message", async (m) => {
  const op = OPS[m?.op];
  let reply;
  try {
    if (!op) throw Object.assign(new Error(`unknown op ${m?.op}`), { code: "EINVAL" });
    reply = await op(m);
  } catch (err) {
    reply = { t: "e", code: err?.code ?? "EIO", message: String(err?.message ?? err) };
  }
  process.send({ id: m.id, reply });
});
// The executor is the only reason to exist: its end is ours.
process.on("disconnect", () => process.exit(0));
