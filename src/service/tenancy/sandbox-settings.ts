/**
 * A tenant's own sandbox settings within the platform's caps: an image from the admin-managed
 * allowlist, limits (memory, CPU, pids, disk) no higher than the caps, and environment variables
 * sealed with the SecretBox at rest and never returned (only their names are). Checked when
 * stored (400 naming the field); turned into the sandbox spec when a session's container starts.
 */
import type { StoredSandboxSettings } from "../../db/rows.js";
import { type ErrorDetail, ValidationError } from "../../errors.js";
import { isSafePrefix, isSafePrefixName } from "../../permission/bash/env-prefix.js";
import type { SessionSandboxSettings } from "../../sandbox/sandbox.js";
import type { SecretBox } from "../secret-box.js";

/** What the platform allows (from the config). */
export interface SandboxPolicy {
  defaultImage: string;
  imageAllowlist: readonly string[];
  caps: { memoryMb: number; cpus: number; pids: number; diskMb: number };
}

/** The settings as the API shows them: the environment by name only. */
/** What the API shows (environment by name only) and a change, as the contract declares them. */
import type {
  TenantSandboxPatch as SandboxSettingsPatch,
  TenantSandboxSettings as SandboxSettingsView,
} from "../../contracts/tenant.js";

export type { SandboxSettingsPatch, SandboxSettingsView };

export const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;
/**
 * Variables the executor sets for each identity, or that would change how commands are found or
 * make every command run a file (the dynamic loader's `LD_*`, shell and Node start-up): the
 * tenant's variables reach each command, the reader identity's included.
 */
const RESERVED_ENV = new Set([
  "HOME",
  "USER",
  "LOGNAME",
  "PATH",
  "SHELL",
  "PWD",
  "BASH_ENV",
  "ENV",
  "NODE_OPTIONS",
]);
const RESERVED_PREFIXES = ["GIT_", "LD_"];
/**
 * Variables naming a file that programs the reader identity runs (auto-allowed read-only
 * commands) read as options or code: ripgrep's option file (`--pre=<program>`), glibc's iconv
 * modules (shared objects), locale and message-catalogue directories (format strings), the zone
 * directory. Set to a file the agent writes, an auto-allowed command would run the agent's code.
 */
const FILE_LOADER_ENV = new Set(["RIPGREP_CONFIG_PATH", "GCONV_PATH", "LOCPATH", "NLSPATH", "TZDIR"]);
const isReserved = (name: string) =>
  RESERVED_ENV.has(name) || FILE_LOADER_ENV.has(name) || RESERVED_PREFIXES.some((p) => name.startsWith(p));
/**
 * A locale, language or time-zone value is a name, never a file (`LANGUAGE=../../workspace/l`
 * loads the agent's message catalogue): the rule auto-allowed commands' own prefixes follow.
 */
const namesAFile = (name: string, value: string) => isSafePrefixName(name) && !isSafePrefix(name, value);
/**
 * Variables that make a runtime load code (or configuration that names code) from a directory or
 * file they name: set to one the agent writes (`/workspace`, `/tmp`, its home), a stdio MCP server
 * would run the agent's code with the tenant's secrets. Refused by name, whatever the value: a
 * value may be a relative path, a list, or a directory the agent reaches some other way.
 */
const MCP_LOADER_ENV = new Set([
  // Python: module search, start-up files, user site, bytecode cache, imports named by value.
  "PYTHONPATH",
  "PYTHONHOME",
  "PYTHONSTARTUP",
  "PYTHONUSERBASE",
  "PYTHONPYCACHEPREFIX",
  "PYTHONPLATLIBDIR",
  "PYTHONBREAKPOINT",
  "PYTHONWARNINGS",
  "PYTHONEXECUTABLE",
  // Node: module search, the REPL's module, extra CAs (a CA the agent wrote reads the server's TLS).
  "NODE_PATH",
  "NODE_REPL_EXTERNAL_MODULE",
  "NODE_EXTRA_CA_CERTS",
  // Perl, Ruby, Java: library paths and options that load a module or agent.
  "PERL5LIB",
  "PERLLIB",
  "PERL5OPT",
  "PERL5DB",
  "RUBYLIB",
  "RUBYOPT",
  "GEM_HOME",
  "GEM_PATH",
  "BUNDLE_GEMFILE",
  "CLASSPATH",
  "JAVA_TOOL_OPTIONS",
  "_JAVA_OPTIONS",
  "JDK_JAVA_OPTIONS",
  // Where programs read their configuration (npm, git, pip and most others under XDG).
  "XDG_CONFIG_HOME",
  "XDG_CONFIG_DIRS",
  "XDG_DATA_HOME",
  "XDG_DATA_DIRS",
  // git: configuration files and values (core.hooksPath, core.fsmonitor run programs), its programs, templates.
  "GIT_CONFIG",
  "GIT_CONFIG_GLOBAL",
  "GIT_CONFIG_SYSTEM",
  "GIT_CONFIG_PARAMETERS",
  "GIT_CONFIG_COUNT",
  "GIT_EXEC_PATH",
  "GIT_TEMPLATE_DIR",
]);
/** npm reads `npm_config_*` in any case (prefix, userconfig, globalconfig, cache, node-options…). */
const MCP_LOADER_PREFIXES = ["NPM_CONFIG_", "GIT_CONFIG_KEY_", "GIT_CONFIG_VALUE_"];
/**
 * A stdio MCP server's variable that would make it run a file the agent can write (its secrets are
 * why it has its own identity); other `GIT_*` only guard the reader's git, so a server may have them.
 */
export const isReservedForMcp = (name: string) =>
  RESERVED_ENV.has(name) ||
  FILE_LOADER_ENV.has(name) ||
  name.startsWith("LD_") ||
  MCP_LOADER_ENV.has(name) ||
  MCP_LOADER_PREFIXES.some((p) => name.toUpperCase().startsWith(p));
const MAX_ENV = 100;
const MAX_ENV_BYTES = 64 * 1024;
const LIMITS = ["memoryMb", "cpus", "pids", "diskMb"] as const;

const sealContext = (tenantId: string) => `tenant-sandbox-env:${tenantId}`;

export function sandboxSettingsView(stored: StoredSandboxSettings): SandboxSettingsView {
  return {
    image: stored.image ?? null,
    memoryMb: stored.memoryMb ?? null,
    cpus: stored.cpus ?? null,
    pids: stored.pids ?? null,
    diskMb: stored.diskMb ?? null,
    env: stored.envNames ?? [],
  };
}

/** The stored settings with `patch` applied, or a 400 naming every field over a cap or not allowed. */
export function applySandboxPatch(
  deps: { sandboxPolicy: SandboxPolicy; secrets: SecretBox },
  tenantId: string,
  stored: StoredSandboxSettings,
  patch: SandboxSettingsPatch,
): StoredSandboxSettings {
  const { caps, imageAllowlist, defaultImage } = deps.sandboxPolicy;
  const problems: ErrorDetail[] = [];
  const next: StoredSandboxSettings = { ...stored };
  if (patch.image !== undefined) {
    if (patch.image === null) delete next.image;
    else if (patch.image !== defaultImage && !imageAllowlist.includes(patch.image)) {
      const allowed = [defaultImage, ...imageAllowlist].join(", ");
      problems.push({
        path: "sandbox.image",
        message: `${patch.image} is not an allowed image (allowed: ${allowed})`,
      });
    } else next.image = patch.image;
  }
  for (const field of LIMITS) {
    const value = patch[field];
    if (value === undefined) continue;
    if (value === null) delete next[field];
    else if (value > caps[field]) {
      problems.push({
        path: `sandbox.${field}`,
        message: `must be at most ${caps[field]} (the platform's cap)`,
      });
    } else next[field] = value;
  }
  if (patch.env !== undefined) {
    const names = Object.keys(patch.env);
    for (const name of names) {
      if (!ENV_NAME.test(name))
        problems.push({ path: `sandbox.env.${name}`, message: "not a valid variable name" });
      else if (isReserved(name))
        problems.push({
          path: `sandbox.env.${name}`,
          message: "is set by the sandbox itself and cannot be overridden",
        });
      else if (namesAFile(name, String(patch.env[name])))
        problems.push({
          path: `sandbox.env.${name}`,
          message: "must be a name, not a path (e.g. en_US.UTF-8, Europe/Paris)",
        });
    }
    if (names.length > MAX_ENV)
      problems.push({ path: "sandbox.env", message: `at most ${MAX_ENV} variables` });
    if (JSON.stringify(patch.env).length > MAX_ENV_BYTES)
      problems.push({ path: "sandbox.env", message: `at most ${MAX_ENV_BYTES} bytes in all` });
    delete next.envSealed;
    next.envNames = names.sort();
    if (names.length > 0) next.envSealed = deps.secrets.seal(patch.env, sealContext(tenantId));
  }
  if (problems.length > 0) throw new ValidationError("invalid sandbox settings", problems);
  return next;
}

/** The settings a session's container is created with (the environment opened). */
export function sessionSandboxSettings(
  secrets: SecretBox,
  tenantId: string,
  stored: StoredSandboxSettings,
): SessionSandboxSettings {
  const mib = 1024 * 1024;
  return {
    ...(stored.image ? { image: stored.image } : {}),
    ...(stored.memoryMb ? { memoryBytes: stored.memoryMb * mib } : {}),
    ...(stored.cpus ? { nanoCpus: Math.round(stored.cpus * 1e9) } : {}),
    ...(stored.pids ? { pids: stored.pids } : {}),
    ...(stored.diskMb ? { diskBytes: stored.diskMb * mib } : {}),
    ...(stored.envSealed ? { env: openEnv(secrets, tenantId, stored.envSealed) } : {}),
  };
}

/**
 * The tenant's variables without the reserved ones: a set stored before a name was reserved
 * (`LD_AUDIT`, `BASH_ENV`… were accepted until round 11) is never given to a command.
 */
function openEnv(secrets: SecretBox, tenantId: string, sealed: string): Record<string, string> {
  const env = secrets.open<Record<string, string>>(sealed, sealContext(tenantId));
  return Object.fromEntries(
    Object.entries(env).filter(([name, value]) => !isReserved(name) && !namesAFile(name, value)),
  );
}
