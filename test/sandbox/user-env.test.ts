import { describe, expect, it } from "vitest";

// The fork server gets a command's environment as NAME=value strings built from a cached base per
// identity (user-env.mjs): it must be exactly userEnv's, in the same order, whatever the request adds.
type Env = Record<string, unknown>;
const modulePath = "../../src/sandbox/executor/user-env.mjs";
const { userEnv, userEnvList } = (await import(modulePath)) as {
  userEnv: (identity: { home: string }, name: string, extra?: Env) => Record<string, string>;
  userEnvList: (identity: { home: string }, name: string, extra?: Env) => string[];
};
const agent = { home: "/home/agent" };
const readers = { home: "/nonexistent" };
const asList = (env: Record<string, string>) => Object.entries(env).map(([k, v]) => `${k}=${v}`);

describe("a command's environment as the fork server's list", () => {
  it.each([
    ["agent, nothing added", agent, "agent", undefined],
    ["agent, a variable of its own", agent, "agent", { FOO: "1", BAR: "two" }],
    ["agent, base variables replaced", agent, "agent", { PATH: "/x", LANG: "C", ZED: "z" }],
    ["agent, an integer-like name", agent, "agent", { "1": "a", FOO: "b" }],
    ["agent, a value that is not a string", agent, "agent", { N: 5, S: "s" }],
    ["reader, nothing added", readers, "reader", undefined],
    ["reader, its own and a git variable", readers, "reader", { FOO: "1", GIT_DIR: "/evil" }],
    ["reader, git configuration replaced", readers, "reader", { GIT_CONFIG_COUNT: "0", BAR: "2" }],
    ["reader, HOME and PATH refused", readers, "reader", { HOME: "/tmp", PATH: "/tmp", LANG: "C" }],
    ["editor, the agent's home as a variable", { home: "/nonexistent" }, "editor", { HOME: "/home/agent" }],
  ])("%s", (_what, identity, name, extra) => {
    const want = asList(userEnv(identity, name, extra as Env | undefined));
    expect(userEnvList(identity, name, extra as Env | undefined)).toEqual(want);
    // Asked again (the base is cached now), and with nothing added after something was.
    expect(userEnvList(identity, name, extra as Env | undefined)).toEqual(want);
    expect(userEnvList(identity, name)).toEqual(asList(userEnv(identity, name)));
  });
});

describe("a reader's git configuration", () => {
  // attack22a: an inline submodule diff runs git in the submodule under its own configuration.
  it("asks for submodule summaries, never inline submodule diffs", () => {
    const env = userEnv(readers, "reader");
    const pairs = Array.from({ length: Number(env.GIT_CONFIG_COUNT) }, (_, i) => [
      env[`GIT_CONFIG_KEY_${i}`],
      env[`GIT_CONFIG_VALUE_${i}`],
    ]);
    expect(pairs).toContainEqual(["diff.submodule", "log"]);
  });
});

describe("a reader's git, structurally (attack25b)", () => {
  const env = userEnv(readers, "reader");

  it("opens no transport: the allowed-protocol list is empty, whatever a repository allows", () => {
    expect(env.GIT_ALLOW_PROTOCOL).toBe("");
  });

  it("starts every git of its own through reader-bin/git, and still finds git's helpers", () => {
    expect(env.GIT_EXEC_PATH).toBe("/opt/toolshed/reader-bin");
    const path = env.PATH?.split(":") ?? [];
    expect(path[0]).toBe("/opt/toolshed/reader-bin");
    expect(path.at(-1)).toBe("/usr/lib/git-core");
  });

  it("a request cannot put either back", () => {
    const own = userEnv(readers, "reader", { GIT_ALLOW_PROTOCOL: "ext", GIT_EXEC_PATH: "/usr/lib/git-core" });
    expect(own.GIT_ALLOW_PROTOCOL).toBe("");
    expect(own.GIT_EXEC_PATH).toBe("/opt/toolshed/reader-bin");
  });
});

describe("under gVisor, every command preloads the statx shim (images/sandbox/statx-compat.c)", () => {
  it("is in every identity's environment once set, cached lists included, and a request's own wins", async () => {
    // A fresh copy of the module: the preload is process-wide state of the executor.
    const fresh = (await import(`${modulePath}?statx`)) as {
      userEnv: typeof userEnv;
      userEnvList: typeof userEnvList;
      preloadStatxCompat: (lib: string) => void;
    };
    const lib = "/usr/local/lib/toolshed-statx-compat.so";
    expect(fresh.userEnv(agent, "agent").LD_PRELOAD).toBeUndefined();
    fresh.userEnvList(readers, "reader");
    fresh.preloadStatxCompat(lib);
    for (const [identity, name] of [
      [agent, "agent"],
      [readers, "reader"],
      [{ home: "/nonexistent" }, "editor"],
    ] as const) {
      expect(fresh.userEnv(identity, name).LD_PRELOAD).toBe(lib);
      expect(fresh.userEnvList(identity, name).filter((e) => e.startsWith("LD_PRELOAD="))).toEqual([
        `LD_PRELOAD=${lib}`,
      ]);
    }
    const own = fresh.userEnvList(agent, "agent", { LD_PRELOAD: "/workspace/mine.so" });
    expect(own.filter((e) => e.startsWith("LD_PRELOAD="))).toEqual(["LD_PRELOAD=/workspace/mine.so"]);
  });
});
