// An ExecRun of `true` as the agent, started through the executor's fork server (the module's
// one instance: a test starts a stand-in for it first) and attached to `sock`.
export interface ExecRunLike {
  final: { t: string; exitCode: number | null } | null;
  attach(sock: object, replay: boolean): void;
}
const execRunPath = "../../src/sandbox/executor/exec-run.mjs";
const { ExecRun } = (await import(execRunPath)) as {
  ExecRun: new (req: object, who: object, opts: object) => ExecRunLike;
};

export function agentRunOfTrue(sock: object): ExecRunLike {
  const run = new ExecRun(
    { argv: ["true"], timeoutMs: 10_000, maxOutputBytes: 1000 },
    { name: "agent", uid: 100000, gid: 100000, identity: { home: "/home/agent" } },
    { keyed: false, resolveCwd: () => "/", leftovers: new Set() },
  );
  run.attach(sock, false);
  return run;
}
