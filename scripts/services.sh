#!/usr/bin/env bash
# Brings up what Toolshed needs on a Debian machine, idempotently: Debian packages (only the
# missing ones), the Docker engine, Redis, node_modules and the sandbox image. Safe to re-run;
# run as root on a fresh machine (CI), or as a user when everything is already installed.
# Node.js >= 20 (with npm) must be there first: Debian 12's own nodejs is 18.
# `services.sh --missing` prints the Debian packages it would install, one a line, and changes nothing.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
only_missing=0
[[ ${1:-} == --missing ]] && only_missing=1
data="${DATA_DIR:-$repo/data}"
[[ $data = /* ]] || data="$repo/$data"
logs="$data/logs"
if ((!only_missing)); then
  mkdir -p "$logs"
  chmod 700 "$logs"
fi
export DEBIAN_FRONTEND=noninteractive

log() { printf '[services] %s\n' "$*" >&2; }
# Log files are the owner's only (0600): created so before anything writes to them.
private_log() {
  [[ -e $1 ]] || (umask 077 && : >"$1")
  chmod 600 "$1"
}
((only_missing)) || for f in apt dockerd redis npm; do private_log "$logs/$f.log"; done
step_started=$SECONDS
done_step() { log "$1 ($((SECONDS - step_started)) s)"; step_started=$SECONDS; }

# Node.js is the one thing this script does not install (Debian 12's nodejs is 18; package.json
# asks for >= 20): say so plainly instead of failing later inside npm or tsx.
node_major="$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)"
if ((node_major < 20)) || ! command -v npm >/dev/null; then
  log "Node.js >= 20 with npm is needed first (found: $(node --version 2>/dev/null || echo none)); Debian 12's nodejs is 18"
  exit 1
fi

# node_modules: installed below when missing or when package.json / the lock file changed.
stamp=node_modules/.toolshed-deps
deps_hash="$({ cat package.json package-lock.json 2>/dev/null || true; } | sha256sum | cut -c1-16)"
need_npm=0
if [[ ! -d node_modules ]] ||
  { [[ "$(cat "$stamp" 2>/dev/null)" != "$deps_hash" ]] && ! npm ls --depth=0 >/dev/null 2>&1; }; then
  need_npm=1
fi

# --- Debian packages: install only what is missing, with one apt-get update at most. ---
missing=()
command -v dockerd >/dev/null || missing+=(docker.io)
command -v redis-server >/dev/null || missing+=(redis-server)
command -v debootstrap >/dev/null || missing+=(debootstrap)
# Workspace volumes: mkfs.ext4 and loop mounts (usually there; minimal images may lack them).
command -v mkfs.ext4 >/dev/null || missing+=(e2fsprogs)
command -v losetup >/dev/null || missing+=(mount)
command -v ps >/dev/null || missing+=(procps)
# up.sh and cluster.sh wait for /readyz with curl (and the README's walkthrough uses it).
command -v curl >/dev/null || missing+=(curl)
# npm's install compiles native modules with node-gyp: tree-sitter always on Debian 12 (its
# prebuild needs a newer libstdc++, scripts/ensure-native.cjs), better-sqlite3 when its prebuild
# cannot be fetched. node-gyp needs python3, make and a C++ compiler.
if ((need_npm)); then
  command -v g++ >/dev/null || missing+=(g++)
  command -v make >/dev/null || missing+=(make)
fi
# node-gyp's, and the Python client's tests (test/clients/python-client.int.test.ts) run with it.
command -v python3 >/dev/null || missing+=(python3)
# The sandbox image's fork server is a static C binary built with the host's compiler.
command -v gcc >/dev/null || missing+=(gcc)
[[ -e /usr/lib/x86_64-linux-gnu/libc.a || -e /usr/lib/aarch64-linux-gnu/libc.a ]] || missing+=(libc6-dev)
# Chromium for the console's browser tests (driven by playwright-core; no browser download).
((EUID == 0)) && ! command -v chromium >/dev/null && missing+=(chromium)
# gVisor, for SANDBOX_RUNTIME=runsc: optional (root installs it, so CI tests both runtimes).
optional=()
((EUID == 0)) && ! command -v runsc >/dev/null && optional+=(runsc)
if ((only_missing)); then
  printf '%s\n' "${missing[@]}" "${optional[@]}" | grep -v '^$' || true
  exit 0
fi
if ((${#missing[@]} + ${#optional[@]} > 0)); then
  if ((${#missing[@]} > 0 && EUID != 0)); then
    log "missing ${missing[*]}: run this script as root once, or install them"
    exit 1
  fi
  # Skip the update when the package lists are already there and less than a day old.
  if [[ -z $(find /var/lib/apt/lists -maxdepth 1 -name '*_Packages' -mmin -1440 -print -quit 2>/dev/null) ]]; then
    apt-get update -qq
  fi
  if ((${#missing[@]} > 0)); then
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >"$logs/apt.log" 2>&1 ||
      { tail -n 30 "$logs/apt.log" >&2; exit 1; }
  fi
  if ((${#optional[@]} > 0)); then
    apt-get install -y -qq --no-install-recommends "${optional[@]}" >>"$logs/apt.log" 2>&1 ||
      log "could not install ${optional[*]} (see $logs/apt.log): SANDBOX_RUNTIME=runsc unavailable"
  fi
  done_step "installed ${missing[*]} ${optional[*]}"
fi

# --- Host kernel (host-wide; containers share it; src/sandbox/host-hardening.ts says why):
# protected links, files and fifos in sticky directories (systemd's defaults; minimal hosts have
# them at 0), and counters every sandbox draws on, raised so that each sandbox's memory cgroup
# binds first: file handles (systemd's value), inotify instances and watches, pipe pages. ---
if ((!only_missing)) && ((EUID == 0)); then
  for kv in fs.protected_symlinks=1 fs.protected_hardlinks=1 fs.protected_regular=2 fs.protected_fifos=1 \
    fs.file-max=9223372036854775807 fs.inotify.max_user_instances=2147483647 \
    fs.inotify.max_user_watches=2147483647; do
    have="$(sysctl -n "${kv%%=*}" 2>/dev/null || echo)"
    if [[ -n $have ]] && ((have < ${kv##*=})); then
      sysctl -qw "$kv" >/dev/null 2>&1 && log "set $kv (was $have)" || log "could not set $kv"
    fi
  done
  # 0 is no soft limit (pipes past it got 2 pages, whoever held the rest).
  have="$(sysctl -n fs.pipe-user-pages-soft 2>/dev/null || echo)"
  if [[ -n $have ]] && ((have != 0)); then
    sysctl -qw fs.pipe-user-pages-soft=0 >/dev/null 2>&1 && log "set fs.pipe-user-pages-soft=0 (was $have)" ||
      log "could not set fs.pipe-user-pages-soft=0"
  fi
fi

# --- Docker engine: start one only if no socket answers. ---
if ! docker info >/dev/null 2>&1; then
  if ((EUID != 0)); then
    log "no Docker engine answers and starting one needs root"
    exit 1
  fi
  log "starting dockerd (log: $logs/dockerd.log)"
  # No bridge and no iptables: sandboxes run with --network none, and CI hosts often lack NAT.
  nohup dockerd --bridge=none --iptables=false --ip-masq=false --ip6tables=false \
    >>"$logs/dockerd.log" 2>&1 </dev/null &
  for _ in $(seq 1 120); do
    docker info >/dev/null 2>&1 && break
    sleep 0.5
  done
  docker info >/dev/null 2>&1 || { tail -n 30 "$logs/dockerd.log" >&2; exit 1; }
  done_step "dockerd is up"
fi

# --- gVisor: register runsc with dockerd (daemon.json + SIGHUP reload) when it is installed. ---
bash "$repo/scripts/register-runsc.sh" || log "runsc is not registered: SANDBOX_RUNTIME=runsc unavailable"

# --- Redis: start a local one (append-only file under DATA_DIR/redis) only if nothing answers. ---
redis_url="${REDIS_URL:-redis://127.0.0.1:6379}"
hostport="${redis_url#*://}"
hostport="${hostport##*@}"
hostport="${hostport%%/*}"
redis_host="${hostport%%:*}"
redis_port=6379
[[ $hostport == *:* ]] && redis_port="${hostport##*:}"
redis_answers() {
  # Plain bash, so it works before redis-tools is installed; any RESP reply (even NOAUTH) counts.
  (exec 3<>"/dev/tcp/$redis_host/$redis_port" && printf 'PING\r\n' >&3 && read -r -t 2 reply <&3 &&
    [[ -n $reply ]]) 2>/dev/null
}
if ! redis_answers; then
  case "$redis_host" in
  127.0.0.1 | localhost | ::1) ;;
  *)
    log "nothing answers at $redis_url and it is not local: not starting one"
    exit 1
    ;;
  esac
  # AOF, fsync'd every second: a restart keeps the queue. The service still recovers when Redis
  # lost everything (its reconciler queues again every job row that expects a run).
  mkdir -p "$data/redis"
  chmod 700 "$data/redis"
  redis-server --bind 127.0.0.1 --port "$redis_port" --daemonize yes --save '' \
    --appendonly yes --appendfsync everysec --logfile "$logs/redis.log" --dir "$data/redis" >/dev/null
  for _ in $(seq 1 50); do
    redis_answers && break
    sleep 0.1
  done
  redis_answers || { log "redis did not start (log: $logs/redis.log)"; exit 1; }
  done_step "redis-server is up on 127.0.0.1:$redis_port"
fi

# --- node_modules: install when missing or when package.json / the lock file changed. ---
if ((need_npm)); then
  # npm ci when the lock file allows it; a lock out of step with package.json falls back to install.
  if [[ ! -f package-lock.json ]] || ! npm ci --no-audit --no-fund --loglevel=error >"$logs/npm.log" 2>&1; then
    [[ -f package-lock.json ]] && log "npm ci failed (see $logs/npm.log); trying npm install"
    npm install --no-audit --no-fund --loglevel=error >>"$logs/npm.log" 2>&1 ||
      { tail -n 30 "$logs/npm.log" >&2; exit 1; }
  fi
  done_step "node modules installed"
fi
echo "$deps_hash" >"$stamp"

# --- The sandbox image (cached by a hash of images/). ---
bash "$repo/images/build.sh"
