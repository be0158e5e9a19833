#!/usr/bin/env bash
# Quickstart: brings the services up, starts `toolshed serve` in the background (API + worker),
# waits for /readyz, then prints where the admin key is (never the key: logs must not hold it)
# and a first request.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
bash scripts/services.sh

data="${DATA_DIR:-$repo/data}"
[[ $data = /* ]] || data="$repo/$data"
logs="$data/logs"
server_log="$logs/toolshed.log"
key_file="$data/admin.key"
mkdir -p "$logs"
chmod 700 "$logs"
[[ -e $server_log ]] || (umask 077 && : >"$server_log")
chmod 600 "$server_log"
url="http://${HOST:-127.0.0.1}:${PORT:-8080}"
log() { printf '[up] %s\n' "$*" >&2; }

if curl -fsS -m 2 "$url/healthz" >/dev/null 2>&1; then
  log "toolshed already answers at $url"
else
  nohup npm run -s toolshed -- serve >>"$server_log" 2>&1 </dev/null &
  pid=$!
  echo "$pid" >"$data/toolshed.pid"
  log "started toolshed serve (pid $pid, log $server_log)"
  for _ in $(seq 1 120); do
    curl -fsS -m 2 "$url/readyz" >/dev/null 2>&1 && break
    kill -0 "$pid" 2>/dev/null || { tail -n 40 "$server_log" >&2; log "toolshed exited"; exit 1; }
    sleep 0.5
  done
  curl -fsS -m 2 "$url/readyz" >/dev/null 2>&1 || {
    tail -n 40 "$server_log" >&2
    curl -sS -m 2 "$url/readyz" >&2 || true
    log "not ready after 60 s"
    exit 1
  }
  # npm does not pass SIGTERM on to the server: record the innermost `main.ts serve` process
  # (npm → sh → tsx → node), whose SIGTERM handler shuts down gracefully.
  server_pid=$pid
  while child="$(pgrep -P "$server_pid" -f 'main\.ts serve' 2>/dev/null | head -n1)" && [[ -n $child ]]; do
    server_pid=$child
  done
  echo "$server_pid" >"$data/toolshed.pid"
fi

echo
echo "Toolshed is up at $url (stop it with: kill \$(cat $data/toolshed.pid))"
# The admin key is never printed or logged: the configured one, or the file the first start wrote.
if [[ -n ${TOOLSHED_ADMIN_KEY:-} ]]; then
  echo "Admin key: the one in TOOLSHED_ADMIN_KEY"
  key_cmd='$TOOLSHED_ADMIN_KEY'
elif [[ -f $key_file ]]; then
  echo "Admin key: in $key_file (mode 0600; store it elsewhere, then delete the file)"
  key_cmd="\$(cat $key_file)"
else
  echo "Admin key: not in $key_file (it is written once, at the first start; or set TOOLSHED_ADMIN_KEY)"
  key_cmd='<admin key>'
fi
echo
echo "First request (create a tenant):"
echo "  curl -sS -X POST $url/v1/tenants -H \"Authorization: Bearer $key_cmd\" -H 'Content-Type: application/json' -d '{\"name\":\"demo\"}'"
