#!/usr/bin/env bash
# Runs the Dockerfile's build steps without Docker, then checks the result as the image would run it:
# the binary starts, needs no Swift libraries at run time, validates the baked config and answers its HEALTHCHECK.
set -euo pipefail
cd "$(dirname "$0")/.."

root=".build-container/rootfs"
rm -rf "$root"
mkdir -p "$root"

# Same commands as the Dockerfile's build stage, with /out replaced by $root.
swift build -c release --static-swift-stdlib --product PageProxy
install -D -m 0755 "$(swift build -c release --show-bin-path)/PageProxy" "$root/usr/local/bin/PageProxy"
install -D -m 0644 config.json "$root/etc/pageproxy/config.json"

binary="$root/usr/local/bin/PageProxy"
echo "container-build: binary $(du -h "$binary" | cut -f1)"
if ldd "$binary" | grep -Ei 'swift|Foundation|dispatch|not found'; then
  echo "container-build: FAIL: the binary needs Swift libraries the runtime image does not have" >&2
  exit 1
fi
# The libraries it links directly: each is in the runtime image. OpenSSL (libssl.so.3) is not linked: it is
# loaded at run time for https:// upstreams, and the runtime image installs it.
echo "container-build: links $(readelf -d "$binary" | awk '/NEEDED/ {gsub(/[][]/, "", $5); printf "%s ", $5}')"
"$binary" --version
"$binary" check-config "$root/etc/pageproxy/config.json"

# Start it as the image does (ENV and CMD), on free ports, and run the HEALTHCHECK command.
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
mock_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
cache=$(mktemp -d)
# The baked config starts the built-in mock; PAGEPROXY_MOCK_PORT keeps it off a demo's 8081.
PAGEPROXY_ADDRESS=127.0.0.1 PAGEPROXY_PORT="$port" PAGEPROXY_MOCK_PORT="$mock_port" PAGEPROXY_CACHE_DIR="$cache" \
  "$binary" serve --config "$root/etc/pageproxy/config.json" > "$cache/log" 2>&1 &
pid=$!
trap 'kill "$pid" 2>/dev/null || true; rm -rf "$cache"' EXIT
for _ in $(seq 1 100); do
  if "$binary" healthcheck --port "$port" 2>/dev/null; then break; fi
  if ! kill -0 "$pid" 2>/dev/null; then cat "$cache/log" >&2; echo "container-build: FAIL: serve exited" >&2; exit 1; fi
  sleep 0.1
done
# The HEALTHCHECK's own command: no --port, the port from the environment as in the image.
PAGEPROXY_ADDRESS=0.0.0.0 PAGEPROXY_PORT="$port" "$binary" healthcheck
kill -TERM "$pid"
wait "$pid"
echo "container-build: OK (healthcheck passed, SIGTERM exit $?)"
