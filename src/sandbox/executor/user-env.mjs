// The environment a command gets: the same base for every command of an identity, then the
// request's own variables, except those that would undo the identity's confinement.

export const BASE_ENV = {
  PATH: "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
  SHELL: "/bin/bash",
  LANG: "C.UTF-8",
  TMPDIR: "/tmp",
};

// Read-only calls: git must not run programs named in repository or user configuration. These
// are command-line scope (they win over .git/config); the kernel (a uid that cannot write) is the
// guarantee, this is the second line.
const READER_GIT_CONFIG = [
  ["core.fsmonitor", "false"],
  ["core.pager", "cat"],
  ["core.hooksPath", "/dev/null"],
  ["core.sshCommand", "false"],
  ["core.askPass", "false"],
  ["credential.helper", ""],
  ["gpg.program", "false"],
  ["log.showSignature", "false"],
  ["gpg.ssh.program", "false"],
  ["gpg.x509.program", "false"],
  ["safe.bareRepository", "explicit"],
  ["protocol.allow", "never"],
  // An inline submodule diff runs `git diff` in the submodule, under its own configuration
  // (diff.external, filters) that reader-bin/git does not look at: a summary only.
  ["diff.submodule", "log"],
];
// Read-only calls find reader-bin/git first: it neutralises textconv and filters per repository.
// It is also their git's exec path, so every git that git starts itself (the `git status` run in
// each submodule, a lazy fetch, `%(describe)`) is reader-bin/git too, for *its* repository: under
// /usr/lib/git-core those ran the real git, whose submodule's own clean filter then ran
// (attack25b). git puts only its exec path before PATH, so /usr/lib/git-core goes at PATH's end:
// helpers that are not builtins (`git submodule`, a script in 2.39) are still found.
const READER_BIN = "/opt/toolshed/reader-bin";
const READER_PATH = `${READER_BIN}:${BASE_ENV.PATH}:/usr/lib/git-core`;
const READER_ENV = {
  PATH: READER_PATH,
  GIT_EXEC_PATH: READER_BIN,
  // No transport at all, whatever the repository says: an empty list of allowed protocols
  // overrides every protocol.<name>.allow, and a repository's `protocol.ext.allow=always` beat the
  // command-scope `protocol.allow=never` (a more specific key): `git remote show` and a lazy fetch
  // of a partial clone ran an `ext::` command or a remote's uploadpack (attack25b).
  GIT_ALLOW_PROTOCOL: "",
  GIT_CONFIG_NOSYSTEM: "0",
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_NO_REPLACE_OBJECTS: "1",
  // `git status` refreshes the index opportunistically: a reader cannot write it, so do not try.
  GIT_OPTIONAL_LOCKS: "0",
  GIT_CONFIG_COUNT: String(READER_GIT_CONFIG.length),
  ...Object.fromEntries(
    READER_GIT_CONFIG.flatMap(([k, v], i) => [
      [`GIT_CONFIG_KEY_${i}`, k],
      [`GIT_CONFIG_VALUE_${i}`, v],
    ]),
  ),
};

/** Whether a request's own variable reaches the command: not one that would undo the identity's confinement. */
function kept(name, k, v) {
  return (
    typeof v === "string" && !(name === "reader" && (k.startsWith("GIT_") || k === "HOME" || k === "PATH"))
  );
}

// Under gVisor (executor.json's `statxCompat`, set by the host for runsc) every command preloads
// images/sandbox/statx-compat.c: that gVisor refuses the statx flag coreutils passes for each
// path, so `ls DIR` and `stat FILE` failed there with "Invalid argument".
let preload;
export function preloadStatxCompat(lib) {
  preload = lib;
  baseLists.clear();
}

const asList = (env) => Object.entries(env).map(([k, v]) => `${k}=${v}`);

export function userEnv(identity, name, extra) {
  const env = { ...BASE_ENV, ...(preload ? { LD_PRELOAD: preload } : {}) };
  Object.assign(env, { HOME: identity.home, USER: name, LOGNAME: name });
  if (name === "reader") Object.assign(env, READER_ENV);
  // The request's own variables last.
  for (const [k, v] of Object.entries(extra ?? {})) if (kept(name, k, v)) env[k] = v;
  return env;
}

// The fork server takes the environment as NAME=value strings; an identity's base ones are
// built once (a read-only call's base alone is 38 variables).
const baseLists = new Map();

/**
 * userEnv as the fork server's NAME=value list, in the same order. Without request variables
 * that replace a base one (or integer-like names, which an object would order first), the
 * identity's cached base list is extended; otherwise it is built from userEnv.
 */
export function userEnvList(identity, name, extra) {
  const key = `${name}\0${identity.home}`;
  let base = baseLists.get(key);
  if (!base) {
    base = asList(userEnv(identity, name));
    baseLists.set(key, base);
  }
  const own = Object.entries(extra ?? {});
  if (own.length === 0) return base;
  const baseKeys = name === "reader" ? READER_KEYS : PLAIN_KEYS;
  if (own.some(([k]) => baseKeys.has(k) || /^\d/.test(k))) return asList(userEnv(identity, name, extra));
  const list = base.slice();
  for (const [k, v] of own) if (kept(name, k, v)) list.push(`${k}=${v}`);
  return list;
}

const PLAIN_KEYS = new Set([...Object.keys(BASE_ENV), "LD_PRELOAD", "HOME", "USER", "LOGNAME"]);
const READER_KEYS = new Set([...PLAIN_KEYS, ...Object.keys(READER_ENV)]);
