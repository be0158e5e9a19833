// The executor's end of the file helper (file-helper.mjs): one long-lived child per sandbox,
// started again if it dies; a request in flight when it dies answers EIO.
import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";

const HELPER = fileURLToPath(new URL("./file-helper.mjs", import.meta.url));

export class FileClient {
  constructor(identity) {
    this.identity = identity;
    this.pending = new Map();
    this.nextId = 1;
    this.child = null;
  }

  /** Sends one operation; resolves with the reply object ({t:"r",…} or {t:"e",…}). */
  request(msg) {
    const child = this.ensure();
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      child.send({ ...msg, id }, (err) => {
        if (err) this.settle(id, { t: "e", code: "EIO", message: `file helper: ${err.message}` });
      });
    });
  }

  /** Starts the helper ahead of the first request, so the first Read does not pay for it. */
  ensure() {
    if (this.child) return this.child;
    const { uid, gid } = this.identity;
    const child = fork(HELPER, [String(uid), String(gid)], {
      stdio: ["ignore", "inherit", "inherit", "ipc"],
      env: { PATH: "/usr/bin:/bin", LANG: "C.UTF-8" },
      cwd: "/",
    });
    child.on("message", (m) => this.settle(m?.id, m?.reply));
    child.on("error", () => {});
    child.once("exit", () => {
      if (this.child === child) this.child = null;
      for (const id of [...this.pending.keys()]) {
        this.settle(id, { t: "e", code: "EIO", message: "the file helper stopped" });
      }
    });
    this.child = child;
    return child;
  }

  settle(id, reply) {
    const resolve = this.pending.get(id);
    if (!resolve) return;
    this.pending.delete(id);
    resolve(reply ?? { t: "e", code: "EIO", message: "file helper sent no reply" });
  }
}
