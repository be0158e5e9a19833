#!/usr/bin/env bash
# The multi-host shape on one machine: Postgres (durable state), Redis, two Docker engines (the
# machine's, and a second dockerd with its own data root, exec root, pid file, socket and config,
# so its own engine ID), two API processes and one worker per engine. No process shares a disk
# with another: each has its own DATA_DIR, and they share only Postgres (DATABASE_URL), Redis and
# the secret key (TOOLSHED_SECRET_KEY). Run as root (the second dockerd needs it).
#
#   scripts/cluster.sh up          everything; prints the admin key and both URLs
#   scripts/cluster.sh down        stops the processes and the second engine (its data stays);
#                                  Postgres keeps running: it is shared (scripts/postgres.sh stop)
#   scripts/cluster.sh engine-up   only the second engine, with the sandbox image loaded (tests)
#   scripts/cluster.sh engine-down
#   scripts/cluster.sh database [NAME]       Postgres up, database NAME (default toolshed_cluster)
#                                            made if absent; prints its URL (the bench uses it)
#   scripts/cluster.sh drop-database NAME
#   scripts/cluster.sh status
#
# Settings (environment): CLUSTER_DIR (default /var/tmp/toolshed-cluster: short, for unix socket
# paths), CLUSTER_API_PORTS (default "8080 8081"), CLUSTER_WORKER_PORTS (default "8090 8091"),
# TOOLSHED_ADMIN_KEY (else one is generated once and kept in $CLUSTER_DIR/admin.key, mode 0600),
# TOOLSHED_SECRET_KEY (else likewise in $CLUSTER_DIR/secret.key), DATABASE_URL (else the
# database toolshed_cluster on the Postgres of scripts/postgres.sh).
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
dir="${CLUSTER_DIR:-/var/tmp/toolshed-cluster}"
read -r -a api_ports <<<"${CLUSTER_API_PORTS:-8080 8081}"
read -r -a worker_ports <<<"${CLUSTER_WORKER_PORTS:-8090 8091}"
e2="$dir/e2"
sock2="unix://$e2/docker.sock"
pids="$dir/pids"
logs="$dir/logs"

log() { printf '[cluster] %s\n' "$*" >&2; }
# The URL with its password hidden, for what this script prints.
masked() { sed -E 's#(://[^:/@]+:)[^@]*@#\1***@#' <<<"$1"; }
docker2() { docker -H "$sock2" "$@"; }

engine_up() {
  mkdir -p "$e2/root" "$e2/exec" "$logs"
  chmod 700 "$dir" "$logs"
  if ! docker2 info >/dev/null 2>&1; then
    ((EUID == 0)) || { log "starting a second dockerd needs root"; exit 1; }
    # Its own config file, with the first engine's runtimes (runsc, if registered). Docker 20.10 takes its engine ID from a key file (/etc/docker/key.json by default): the
    # second engine gets its own (`deprecated-key-path`, config-file only), or both would be one host.
    node -e '
      const fs = require("node:fs");
      const [src, dst, key] = process.argv.slice(1);
      const conf = fs.existsSync(src) ? JSON.parse(fs.readFileSync(src, "utf8")) : {};
      fs.writeFileSync(dst, JSON.stringify({ ...conf, "deprecated-key-path": key }, null, 2));
    ' /etc/docker/daemon.json "$e2/daemon.json" "$e2/key.json"
    log "starting the second dockerd (socket $e2/docker.sock, log $logs/dockerd2.log)"
    # Same flags as scripts/services.sh: sandboxes run with --network none, no NAT needed.
    nohup dockerd --data-root "$e2/root" --exec-root "$e2/exec" --pidfile "$e2/docker.pid" \
      -H "$sock2" --config-file "$e2/daemon.json" \
      --bridge=none --iptables=false --ip-masq=false --ip6tables=false \
      >>"$logs/dockerd2.log" 2>&1 </dev/null &
    for _ in $(seq 1 120); do
      docker2 info >/dev/null 2>&1 && break
      sleep 0.5
    done
    docker2 info >/dev/null 2>&1 || { tail -n 30 "$logs/dockerd2.log" >&2; exit 1; }
  fi
  # Hosts are named after their engine's ID: two engines with one ID would be one host.
  if [[ "$(docker info -f '{{.ID}}')" == "$(docker2 info -f '{{.ID}}')" ]]; then
    log "both engines report the same ID; set HOST_ID per worker (or remove $e2/key.json and retry)"
    exit 1
  fi
  # The sandbox image, by ID: the same on both engines (save/load keeps it).
  image="$(docker image inspect -f '{{.Id}}' toolshed-sandbox:latest)"
  if ! docker2 image inspect "$image" >/dev/null 2>&1; then
    log "loading the sandbox image into the second engine"
    docker save toolshed-sandbox:latest | docker2 load -q >/dev/null
  fi
  echo "$image" >"$dir/image"
}

engine_down() {
  local pid
  pid="$(cat "$e2/docker.pid" 2>/dev/null)" || return 0
  kill -0 "$pid" 2>/dev/null || return 0
  # Its containers first (this cluster's only), then the engine.
  docker2 ps -aq --filter label=toolshed.service=toolshed-cluster | xargs -r docker2 rm -f -v >/dev/null 2>&1 || true
  kill "$pid"
  for _ in $(seq 1 60); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.5
  done
  log "second dockerd stopped"
}

# Postgres from scripts/postgres.sh (started when needed; shared with the tests), and a database
# on it made once; prints the database's URL.
database() {
  local name=${1:-toolshed_cluster} server
  [[ $name =~ ^[a-z_][a-z0-9_]*$ ]] || { log "database name must be lower-case letters, digits and _"; exit 2; }
  server="$(bash scripts/postgres.sh)"
  if [[ $(psql "$server" -qAtX -c "select 1 from pg_database where datname = '$name'") != 1 ]]; then
    psql "$server" -qAtX -v ON_ERROR_STOP=1 -c "create database $name" >/dev/null
    log "created database $name"
  fi
  echo "${server%/*}/$name"
}

drop_database() {
  local name=${1:?drop-database NAME} server
  [[ $name =~ ^[a-z_][a-z0-9_]*$ && $name != toolshed ]] || { log "refusing to drop '$name'"; exit 2; }
  server="$(bash scripts/postgres.sh)"
  psql "$server" -qAtX -v ON_ERROR_STOP=1 -c "drop database if exists $name with (force)" >/dev/null
}

# A key made once and kept in $dir (mode 0600): $1 file name, $2 command that prints a new one.
# N random bytes in ENCODING (hex, base64), without openssl (not on a fresh Debian).
random_key() {
  node -e 'process.stdout.write(require("node:crypto").randomBytes(+process.argv[1]).toString(process.argv[2]) + "\n")' "$1" "$2"
}

kept_key() {
  [[ -s $dir/$1 ]] || (umask 077 && eval "$2" >"$dir/$1")
  cat "$dir/$1"
}

# Starts `toolshed <mode>` in the background with the cluster's environment plus "$@" (KEY=value).
start() {
  local name=$1 mode=$2
  shift 2
  if [[ -f $pids/$name.pid ]] && kill -0 "$(cat "$pids/$name.pid")" 2>/dev/null; then
    log "$name already runs (pid $(cat "$pids/$name.pid"))"
    return
  fi
  (umask 077 && : >>"$logs/$name.log")
  env "${common[@]}" "$@" nohup node --import tsx src/main.ts "$mode" >>"$logs/$name.log" 2>&1 </dev/null &
  echo $! >"$pids/$name.pid"
}

wait_ready() {
  local url=$1 name=$2
  for _ in $(seq 1 120); do
    curl -fsS -m 2 "$url/readyz" >/dev/null 2>&1 && return 0
    kill -0 "$(cat "$pids/$name.pid")" 2>/dev/null || break
    sleep 0.5
  done
  tail -n 30 "$logs/$name.log" >&2
  log "$name is not ready at $url"
  exit 1
}

up() {
  bash scripts/services.sh
  engine_up
  mkdir -p "$pids"
  key=${TOOLSHED_ADMIN_KEY:-$(kept_key admin.key "random_key 24 hex")}
  secret=${TOOLSHED_SECRET_KEY:-$(kept_key secret.key "random_key 32 base64")}
  db_url=${DATABASE_URL:-$(database toolshed_cluster)}
  [[ -n $db_url ]] || { log "no database: set DATABASE_URL or let scripts/postgres.sh start one"; exit 1; }
  mkdir -p "$dir/api1" "$dir/api2" "$dir/worker1" "$dir/worker2"
  # Shared by every process: the database, the queue prefix, the image, the keys. Nothing else:
  # each process gets its own DATA_DIR below, as it would on its own machine.
  common=(
    DATABASE_URL="$db_url" TOOLSHED_SECRET_KEY="$secret"
    REDIS_URL="${REDIS_URL:-redis://127.0.0.1:6379}"
    QUEUE_PREFIX=toolshed-cluster SERVICE_ID=toolshed-cluster HOST=127.0.0.1
    SANDBOX_IMAGE="$(cat "$dir/image")" TOOLSHED_ADMIN_KEY="$key" LOG_LEVEL="${LOG_LEVEL:-info}"
  )
  # One worker per engine; each keeps its workspaces on its own disk area (SANDBOX_DIR).
  start worker1 worker DATA_DIR="$dir/worker1" WORKER_PORT="${worker_ports[0]}" SANDBOX_DIR="$dir/sb1" \
    DOCKER_HOST=unix:///var/run/docker.sock
  start worker2 worker DATA_DIR="$dir/worker2" WORKER_PORT="${worker_ports[1]}" SANDBOX_DIR="$dir/sb2" \
    DOCKER_HOST="$sock2"
  start api1 api DATA_DIR="$dir/api1" PORT="${api_ports[0]}"
  start api2 api DATA_DIR="$dir/api2" PORT="${api_ports[1]}"
  wait_ready "http://127.0.0.1:${worker_ports[0]}" worker1
  wait_ready "http://127.0.0.1:${worker_ports[1]}" worker2
  wait_ready "http://127.0.0.1:${api_ports[0]}" api1
  wait_ready "http://127.0.0.1:${api_ports[1]}" api2
  echo
  echo "Toolshed cluster is up (logs in $logs; stop it with: npm run cluster:down)"
  echo "  API 1: http://127.0.0.1:${api_ports[0]}"
  echo "  API 2: http://127.0.0.1:${api_ports[1]}"
  echo "  workers: http://127.0.0.1:${worker_ports[0]} (engine unix:///var/run/docker.sock), http://127.0.0.1:${worker_ports[1]} (engine $sock2)"
  echo "  database: $(masked "$db_url")"
  echo "  Admin key: $key"
}

down() {
  for name in api1 api2 worker1 worker2; do
    [[ -f $pids/$name.pid ]] || continue
    pid="$(cat "$pids/$name.pid")"
    if kill -0 "$pid" 2>/dev/null; then
      kill "$pid"
      for _ in $(seq 1 60); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.5
      done
      log "$name stopped"
    fi
    rm -f "$pids/$name.pid"
  done
  engine_down
  log "Postgres keeps running (shared with the tests; its data stays): bash scripts/postgres.sh stop"
}

status() {
  for name in api1 api2 worker1 worker2; do
    if [[ -f $pids/$name.pid ]] && kill -0 "$(cat "$pids/$name.pid")" 2>/dev/null; then
      echo "$name: running (pid $(cat "$pids/$name.pid"))"
    else
      echo "$name: stopped"
    fi
  done
  docker2 info >/dev/null 2>&1 && echo "engine 2: running ($sock2)" || echo "engine 2: stopped"
  local url
  if [[ -n ${DATABASE_URL:-} ]]; then
    url=$DATABASE_URL
  elif url="$(bash scripts/postgres.sh url 2>/dev/null)"; then
    psql "$url" -qAtX -c "select 1" >/dev/null 2>&1 ||
      { echo "postgres: stopped ($(masked "$url"); up starts it)"; return 0; }
    url="${url%/*}/toolshed_cluster"
  else
    echo "postgres: none yet (up makes one with scripts/postgres.sh)"
    return 0
  fi
  if psql "$url" -qAtX -c "select 1" >/dev/null 2>&1; then
    echo "postgres: running, database $(masked "$url")"
  else
    echo "postgres: $(masked "$url") does not answer (up makes the database)"
  fi
}

case "${1:-}" in
up) up ;;
down) down ;;
engine-up) engine_up ;;
engine-down) engine_down ;;
database) database "${2:-toolshed_cluster}" ;;
drop-database) drop_database "${2:-}" ;;
status) status ;;
*)
  echo "usage: $0 up|down|engine-up|engine-down|database [NAME]|drop-database NAME|status" >&2
  exit 2
  ;;
esac
