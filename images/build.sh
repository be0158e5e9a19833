#!/usr/bin/env bash
# Builds the sandbox image offline: a Debian root filesystem made with debootstrap from the apt
# mirror this machine already uses, imported with `docker import` (no registry needed).
# Tagged toolshed-sandbox:<hash of images/> and :latest; skipped when that hash already exists.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"
suite=bookworm
# Several checkouts share one engine: TOOLSHED_IMAGE_NAME keeps a checkout's build under its own name.
name=${TOOLSHED_IMAGE_NAME:-toolshed-sandbox}
started=$SECONDS

log() { printf '[images] %s\n' "$*" >&2; }

# The bundled MCP servers (bundle-mcp.mjs) come from node_modules: their versions count too.
mcp_versions="$(cd "$repo" && node -e 'for (const p of ["@modelcontextprotocol/server-everything", "@modelcontextprotocol/server-memory"]) console.log(p, require(p + "/package.json").version)')"
# The executor ships in the image (/opt/toolshed): its code counts too, and its own hash labels the
# image so that a worker can tell whether the image carries the executor it expects
# (src/sandbox/executor-source.ts computes the same hash).
executor_src="$repo/src/sandbox/executor"
executor_hash="$(cd "$executor_src" && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum | sha256sum | cut -c1-12)"
hash="$(cd "$here" && { find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum; echo "$mcp_versions"; echo "executor $executor_hash"; } | sha256sum | cut -c1-12)"
tag="$name:$hash"

# Another engineer or CI step may be building at the same time: serialise on a lock file.
cache="${TOOLSHED_CACHE_DIR:-$repo/.cache}"
mkdir -p "$cache/debootstrap"
exec 9>"$cache/images.lock"
flock 9

if docker image inspect "$tag" >/dev/null 2>&1; then
  docker tag "$tag" "$name:latest"
  log "$tag is up to date (checked in $((SECONDS - started)) s)"
  exit 0
fi

# Mirrors come from the machine's own apt sources, never from this repository.
uri_for_suite() {
  local want=$1 f=/etc/apt/sources.list.d/debian.sources
  if [[ -r $f ]]; then
    # deb822: the URIs of the first stanza whose Suites names exactly that suite.
    awk -v suite="$want" '
      /^[[:space:]]*$/ { if (uri != "" && ok) { print uri; exit } uri = ""; ok = 0; next }
      /^URIs:/ { uri = $2 }
      /^Suites:/ { for (i = 2; i <= NF; i++) if ($i == suite) ok = 1 }
      END { if (uri != "" && ok) print uri }' "$f" | head -n1
    return
  fi
  if [[ -r /etc/apt/sources.list ]]; then
    sed -nE "s/^deb[[:space:]]+(\[[^]]*\][[:space:]]+)?([^[:space:]]+)[[:space:]]+${want}([[:space:]].*)?\$/\2/p" \
      /etc/apt/sources.list | head -n1
  fi
}
mirror="$(uri_for_suite "$suite")"
security="$(uri_for_suite "$suite-security")"
[[ -n $mirror ]] || { log "no Debian mirror found in /etc/apt/sources.list.d/debian.sources or /etc/apt/sources.list"; exit 1; }
command -v debootstrap >/dev/null || { log "debootstrap is missing (apt-get install debootstrap)"; exit 1; }

packages="$(grep -v '^#' "$here/sandbox/packages.txt" | xargs | tr ' ' ',')"
work="$(mktemp -d /var/tmp/toolshed-rootfs.XXXXXX)"
root="$work/rootfs"
# Unmount first, and never let rm cross into a mounted /proc.
trap 'umount "$root/proc" 2>/dev/null || true; rm -rf --one-file-system "$work"' EXIT
mkdir -p "$root/etc/dpkg/dpkg.cfg.d"
# dpkg honours the excludes from the first package on, so docs and locales never land.
cp "$here/sandbox/dpkg-excludes" "$root/etc/dpkg/dpkg.cfg.d/toolshed-excludes"

log "debootstrap $suite ($packages) from $mirror"
debootstrap --variant=minbase --include="$packages" --cache-dir="$cache/debootstrap" \
  "$suite" "$root" "$mirror" >"$work/debootstrap.log" 2>&1 || {
  tail -n 40 "$work/debootstrap.log" >&2
  exit 1
}

# Security updates, from the security archive the machine's own sources name (if any).
if [[ -n $security ]]; then
  log "applying $suite-security updates from $security"
  printf 'deb %s %s main\ndeb %s %s-security main\n' "$mirror" "$suite" "$security" "$suite" \
    >"$root/etc/apt/sources.list"
  cp /etc/resolv.conf "$root/etc/resolv.conf"
  mount -t proc proc "$root/proc"
  in_root() { chroot "$root" env PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive "$@"; }
  { in_root apt-get update -qq && in_root apt-get -y -qq -o Dpkg::Options::=--force-confold upgrade; } \
    >"$work/upgrade.log" 2>&1 || { tail -n 40 "$work/upgrade.log" >&2; exit 1; }
  umount "$root/proc"
  rm -f "$root/etc/resolv.conf"
fi

# The sandbox's identities, written directly so the build does not depend on passwd tools in the
# chroot. Their uids are above every host user's (no host account has them); the host may move
# them (SANDBOX_UID_BASE), these names are only the defaults' labels. See src/sandbox/executor/identities.mjs.
{
  echo 'agent:x:100000:100000:agent:/home/agent:/bin/bash'
  echo 'mcp:x:100002:100000:mcp:/nonexistent:/usr/sbin/nologin'
  for i in $(seq 1 63); do echo "mcp$i:x:$((100031 + i)):100000:stdio MCP servers:/nonexistent:/usr/sbin/nologin"; done
  echo 'editor:x:100003:100000:accept_edits calls:/nonexistent:/usr/sbin/nologin'
  for i in $(seq 0 15); do echo "reader$i:x:$((100010 + i)):100001:read-only calls:/nonexistent:/usr/sbin/nologin"; done
} >>"$root/etc/passwd"
printf '%s\n' 'agent:x:100000:' 'readers:x:100001:' >>"$root/etc/group"
[[ -f $root/etc/shadow ]] && echo 'agent:!:19000:0:99999:7:::' >>"$root/etc/shadow"
mkdir -p "$root/home/agent" "$root/workspace" "$root/run/toolshed" "$root/opt/toolshed"
chown 100000:100000 "$root/home/agent" "$root/workspace"
chmod 0700 "$root/home/agent"
# System git configuration: bare repositories only when named explicitly (a bare repository
# committed as ordinary files cannot run its hooks or fsmonitor); read-only calls run as other
# uids than the workspace's owner, so every directory is safe to read.
install -m 0644 "$here/sandbox/gitconfig" "$root/etc/gitconfig"

# The C.UTF-8 locale (every command's LANG) in a locale archive: glibc then maps it whole in one
# open, where from its folder it opens and maps each of its 13 categories (about 70 syscalls at
# every start of bash, ~0.1 ms of CPU per command). The same locale data either way.
chroot "$root" /usr/bin/localedef --add-to-archive /usr/lib/locale/C.utf8

# bash is Debian's static build of the same bash (bash-static: same version, options and
# builtins): a start then maps no shared library and relocates nothing, ~0.3 ms of CPU less per
# command, and every Bash call starts one. The dynamic binary stays as bash.dynamic (diverted, so
# that no package operation puts it back behind the image's back).
cp -p "$root/bin/bash" "$root/bin/bash.dynamic"
chroot "$root" dpkg-divert --quiet --local --no-rename --divert /bin/bash.dynamic --add /bin/bash
cp "$root/bin/bash-static" "$root/bin/bash"

# The executor, root's and read-only to everyone else (the container starts it as uid 0).
cp -r "$executor_src/." "$root/opt/toolshed/"
chown -R 0:0 "$root/opt/toolshed"
chmod -R a+rX,go-w "$root/opt/toolshed"

# The executor's fork server (spawner.c): a static binary built here with the host's gcc, so
# the image needs no compiler and nothing is downloaded. Without it the executor uses Node's spawn.
command -v gcc >/dev/null || { log "gcc is missing (apt-get install gcc libc6-dev)"; exit 1; }
mkdir -p "$root/usr/local/libexec"
gcc -O2 -Wall -Werror -static -s -o "$root/usr/local/libexec/toolshed-spawner" "$here/sandbox/spawner.c"
chmod 0755 "$root/usr/local/libexec/toolshed-spawner"
# Preloaded into commands under gVisor only (the executor decides; statx-compat.c says why).
gcc -O2 -Wall -Werror -shared -fPIC -s -o "$root/usr/local/lib/toolshed-statx-compat.so" \
  "$here/sandbox/statx-compat.c" -ldl
chmod 0644 "$root/usr/local/lib/toolshed-statx-compat.so"

# Platform-provided MCP servers under /opt/mcp: third-party npm packages bundled for Node 18.
mkdir -p "$root/opt/mcp"
node "$here/bundle-mcp.mjs" "$root/opt/mcp" >"$work/bundle-mcp.log" 2>&1 || { cat "$work/bundle-mcp.log" >&2; exit 1; }
chmod -R a+rX,go-w "$root/opt/mcp"

# Docs go, except the copyright files the Debian licences ask to ship with the binaries.
find "$root/usr/share/doc" -mindepth 1 ! -type d ! -name copyright -delete
find "$root/usr/share/doc" -mindepth 1 -type d -empty -delete
rm -rf "$root"/var/cache/apt/* "$root"/var/lib/apt/lists/* "$root"/var/log/* \
  "$root"/usr/share/man/* "$root"/usr/share/info/* \
  "$root"/usr/share/locale/* "$root"/usr/share/lintian "$root"/var/cache/debconf/*-old \
  "$root"/tmp/* "$root"/var/tmp/*

tar --numeric-owner -C "$root" -c . | docker import \
  --change 'USER agent' \
  --change 'WORKDIR /workspace' \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'ENV LANG=C.UTF-8' \
  --change 'ENV HOME=/home/agent' \
  --change 'CMD ["bash"]' \
  --change "LABEL toolshed.executor=$executor_hash" \
  - "$tag" >/dev/null
docker tag "$tag" "$name:latest"

# Older builds go too, unless a container still uses them (then rmi refuses, which is fine), or
# TOOLSHED_KEEP_IMAGES=1 (several checkouts sharing one engine each keep the build they use).
[[ ${TOOLSHED_KEEP_IMAGES:-0} == 1 ]] || docker image ls --format '{{.Repository}}:{{.Tag}}' "$name" | grep -vxF -e "$tag" -e "$name:latest" |
  xargs -r docker rmi >/dev/null 2>&1 || true

size="$(docker image inspect -f '{{.Size}}' "$tag")"
log "built $tag ($((size / 1024 / 1024)) MiB) in $((SECONDS - started)) s"
