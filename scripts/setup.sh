#!/usr/bin/env bash
# Installs what a fresh machine lacks and prepares the embedded default. Safe to run again: each step
# checks first and is instant when already done.
set -euo pipefail
cd "$(dirname "$0")/.."

log() { printf '\033[1msetup:\033[0m %s\n' "$*" >&2; }
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

# 1. System packages: bubblewrap and catatonit (local sandboxes: isolation, and a pid-1 that reaps and
#    survives `kill -9 -1`), a C compiler and libseccomp (sandgym-helper, the local provider's only start
#    path, and its seccomp filter), e2fsprogs (each local sandbox's disk image), passt and nftables
#    (network for local sandboxes that ask for it: pasta's user-mode NAT, and the firewall that keeps it
#    off the host and private ranges), debootstrap (base images), Docker (docker provider), Chromium
#    (the `sandgym ui` page's browser test, driven by playwright-core), docker-registry (the registry the
#    image push of `images sync --registry` is tested against, on loopback).
need=()
command -v bwrap >/dev/null || need+=(bubblewrap)
command -v debootstrap >/dev/null || need+=(debootstrap)
command -v dockerd >/dev/null || need+=(docker.io)
command -v catatonit >/dev/null || need+=(catatonit)
command -v cc >/dev/null || need+=(gcc libc6-dev)
[ -e /usr/include/seccomp.h ] || need+=(libseccomp-dev)
command -v mkfs.ext4 >/dev/null || need+=(e2fsprogs)
command -v pasta >/dev/null || need+=(passt)
command -v nft >/dev/null || need+=(nftables)
command -v chromium >/dev/null || need+=(chromium)
command -v docker-registry >/dev/null || need+=(docker-registry)
if [ ${#need[@]} -gt 0 ]; then
  log "installing ${need[*]}"
  export DEBIAN_FRONTEND=noninteractive
  as_root apt-get update -q >/dev/null
  as_root apt-get install -y -q "${need[@]}" >/dev/null
fi

# 2. npm packages, when package-lock.json changed since the last install.
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  log "installing npm packages"
  npm ci --no-audit --no-fund --loglevel=error
fi

# 3. The Docker engine, when none answers: overlay2 (the fast, common driver) with its data root on a capped
#    ext4 loop file, so a container that fills its disk fills that file, never the host's disk. (overlay2 can
#    limit one container's writes only on XFS with project quotas, which this kernel lacks; btrfs quotas can,
#    but made every container operation take seconds to minutes here.)
if ! docker info >/dev/null 2>&1; then
  state=/var/lib/sandgym-docker
  as_root mkdir -p "$state/data"
  if ! mountpoint -q "$state/data"; then
    [ -f "$state/ext4.img" ] || { as_root truncate -s 48G "$state/ext4.img"; as_root mkfs.ext4 -q -F "$state/ext4.img"; }
    as_root mount -o loop "$state/ext4.img" "$state/data"
  fi
  log "starting dockerd (data root $state/data: overlay2 on a 48 GiB ext4 file)"
  as_root sh -c "nohup dockerd --data-root '$state/data' --storage-driver overlay2 >'$state/dockerd.log' 2>&1 &"
  for _ in $(seq 60); do docker info >/dev/null 2>&1 && break; sleep 0.5; done
  docker info >/dev/null 2>&1 || { log "dockerd did not start; see $state/dockerd.log"; exit 1; }
fi

# 4. Base images (cached by content: instant when already built).
node bin/sandgym.js images build base
