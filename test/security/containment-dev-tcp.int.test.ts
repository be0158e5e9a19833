/**
 * attack22a: a read-only call must not talk to a server on the container's loopback. Bash opens
 * `/dev/tcp/HOST/PORT` itself, for `<` too, and the descriptor goes both ways: `echo x
 * 3</dev/tcp/127.0.0.1/P >&3` sends `x`. The reader's uid stops nothing here: the server is the
 * agent's (started by an allowed command, as a dev server would be), so whatever it does with what
 * it hears, it does as the agent. Here it appends every message to a file in the workspace.
 */
import { describe, expect, it } from "vitest";
import { pollUntil } from "../support/wait-for-job.js";
import { type Attacker, globFinds, harnessFor, jobText, newAttacker, runtimes } from "./support.js";

const PORT = 8765;

/** The agent's server: appends what each connection sends to /workspace/net-got. */
const LISTENER = [
  "import socket",
  "s = socket.socket()",
  "s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)",
  `s.bind(("127.0.0.1", ${PORT}))`,
  "s.listen()",
  "open('/workspace/listening', 'w').close()",
  "while True:",
  "    c, _ = s.accept()",
  "    data = c.recv(4096)",
  "    with open('/workspace/net-got', 'ab') as f:",
  "        f.write(data)",
  "    c.close()",
].join("\n");

async function withListener(a: Attacker): Promise<void> {
  const file = await a.writeScript(LISTENER, "py");
  const { job, out } = await a.script(
    `setsid python3 ${file} </dev/null >/tmp/listener.log 2>&1 &\n` +
      "for i in $(seq 100); do [ -e /workspace/listening ] && break; sleep 0.1; done\ncat /tmp/listener.log\ntest -e /workspace/listening",
  );
  expect(job.status, out).toBe("succeeded");
  // From here no Bash is allowed by rule: only what the analysis calls read-only runs.
  await a.setRules({ allow: ["Glob", "Read"] });
}

const SPELLINGS = [
  `echo pwned 3</dev/tcp/127.0.0.1/${PORT} >&3`,
  `printf pwned 0</dev/tcp/127.0.0.1/${PORT} >&0`,
  `{ echo pwned >&0; } </dev/tcp/127.0.0.1/${PORT}`,
];

describe.each(runtimes)("containment under %s: read-only calls and loopback sockets", (runtime) => {
  const h = harnessFor(runtime);

  it.each(SPELLINGS)("`%s` is not auto-allowed, and the agent's server hears nothing", async (command) => {
    const a = await newAttacker(h(), { allow: ["Bash", "Write", "Glob", "Read"] });
    await withListener(a);
    const job = await a.callAndWait("Bash", { command });
    expect.soft(job.decision.behavior, `${command}: ${job.decision.message}`).not.toBe("allow");
    expect.soft(job.status).not.toBe("succeeded");
    expect(await globFinds(a, "net-got"), `${command} reached the server`).toBe("");

    // The control: the server was listening, and a command allowed by rule reaches it.
    await a.setRules({ allow: ["Bash", "Glob", "Read"] });
    const control = await a.bash(`echo control 3</dev/tcp/127.0.0.1/${PORT} >&3`);
    expect(control.job.status, control.out).toBe("succeeded");
    // The server writes what it heard after the sender has gone (commands run below the executor's
    // CPU weight, so a Read may come first): read until the control is there. The server takes its
    // connections in order, so anything the read-only spelling had sent would be there before it.
    const got = await pollUntil(
      async () => jobText(await a.callAndWait("Read", { file_path: "/workspace/net-got" })),
      (text) => text.includes("control"),
      { timeoutMs: 30_000, what: "the control's message in /workspace/net-got" },
    );
    expect(got).not.toContain("pwned");
  });
});
