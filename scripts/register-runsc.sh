#!/usr/bin/env bash
# Registers gVisor's runsc as the Docker runtime "runsc" (SANDBOX_RUNTIME=runsc) when it is
# installed: merges it into /etc/docker/daemon.json (other keys are kept) and, when a running
# dockerd does not list it yet, sends that dockerd SIGHUP, which reloads `runtimes` and leaves
# running containers alone. Usage: register-runsc.sh [--file-only]. Needs root to change anything.
set -euo pipefail

log() { printf '[runsc] %s\n' "$*" >&2; }
config="${DOCKER_DAEMON_JSON:-/etc/docker/daemon.json}"
runsc="$(command -v runsc || true)"
[[ -n $runsc ]] || { log "runsc is not installed: skipping (SANDBOX_RUNTIME=runsc unavailable)"; exit 0; }

listed() { docker info --format '{{json .Runtimes}}' 2>/dev/null | grep -q '"runsc"'; }
if ((EUID != 0)); then
  listed || log "runsc is installed but not registered with dockerd; run this script as root once"
  exit 0
fi

# --network=none: runsc refuses a network in the root network namespace; --host-uds=open: the
# executor dials the host's unix socket (bind-mounted); --platform=ptrace: no KVM needed.
mkdir -p "$(dirname "$config")"
changed="$(node - "$config" "$runsc" <<'JS'
const fs = require("node:fs");
const [file, path] = process.argv.slice(2);
let cfg = {};
try {
  cfg = JSON.parse(fs.readFileSync(file, "utf8"));
} catch (err) {
  if (err.code !== "ENOENT") throw err;
}
const want = { path, runtimeArgs: ["--network=none", "--host-uds=open", "--platform=ptrace"] };
if (JSON.stringify(cfg.runtimes?.runsc) === JSON.stringify(want)) process.stdout.write("no");
else {
  cfg.runtimes = { ...cfg.runtimes, runsc: want };
  fs.writeFileSync(`${file}.tmp`, `${JSON.stringify(cfg, null, 2)}\n`);
  fs.renameSync(`${file}.tmp`, file);
  process.stdout.write("yes");
}
JS
)"
[[ $changed == yes ]] && log "added runtime runsc to $config"
[[ ${1:-} == --file-only ]] && exit 0

# A dockerd started before the file changed: reload it (pid file first, the one answering us).
if docker info >/dev/null 2>&1 && { [[ $changed == yes ]] || ! listed; }; then
  pid="$(cat /var/run/docker.pid 2>/dev/null || true)"
  [[ -n $pid ]] && kill -0 "$pid" 2>/dev/null || { log "no dockerd pid file: reload it by hand (kill -HUP)"; exit 1; }
  kill -HUP "$pid"
  deadline=$((SECONDS + 5))
  until listed; do
    ((SECONDS < deadline)) || { log "dockerd did not pick up runsc after SIGHUP (see its log)"; exit 1; }
    sleep 0.25
  done
  log "dockerd (pid $pid) reloaded: runtime runsc registered"
fi
