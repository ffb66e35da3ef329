#!/usr/bin/env bash
# Checks PageProxy against a real local TLS server with a self-signed certificate (the toolchain has no TLS
# server; the Swift tests use PageProxy's own OpenSSL layer on both sides, this checks it against another TLS
# stack): the certificate does not verify against the system trust store, and the route answers a 502 whose
# error says so; with the certificate as the route's caFile it answers 200; and with SSL_CERT_FILE pointing at
# it (OpenSSL's own override of the system store) it answers 200 too.
# Uses openssl, curl and Python's ssl module; only 127.0.0.1.
#   bash scripts/https-check.sh [path to a built PageProxy binary, default .build/debug/PageProxy]
set -euo pipefail
cd "$(dirname "$0")/.."
binary="${1:-.build/debug/PageProxy}"
for tool in openssl python3 curl; do
  command -v "$tool" >/dev/null || { echo "https-check: SKIP: $tool is not installed"; exit 0; }
done
[ -x "$binary" ] || swift build --product PageProxy

work=$(mktemp -d)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj "/CN=127.0.0.1" -addext "subjectAltName=IP:127.0.0.1" \
  -keyout "$work/key.pem" -out "$work/cert.pem" 2>/dev/null

# A TLS upstream with one short page of three items, on an ephemeral port it prints.
cat > "$work/upstream.py" <<'EOF'
import http.server, ssl, sys
class Page(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = b'[{"id":1},{"id":2},{"id":3}]'
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *args):
        pass
server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Page)
context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
context.load_cert_chain(sys.argv[1], sys.argv[2])
server.socket = context.wrap_socket(server.socket, server_side=True)
print(server.server_address[1], flush=True)
server.serve_forever()
EOF
python3 "$work/upstream.py" "$work/cert.pem" "$work/key.pem" > "$work/upstream.port" &
pids+=($!)
for _ in $(seq 1 100); do [ -s "$work/upstream.port" ] && break; sleep 0.1; done
upstream_port=$(cat "$work/upstream.port")
# The upstream really speaks TLS with this certificate (curl trusts it when told to).
curl -sS --cacert "$work/cert.pem" "https://127.0.0.1:$upstream_port/items" | grep -q '"id":3'

write_config() {
cat > "$work/config.json" <<EOF
{"listen":{"address":"127.0.0.1","port":0},
 "routes":[{"name":"selfsigned","upstream":"https://127.0.0.1:$upstream_port/items",
            "pagination":{"scheme":"page-number","pageSize":10},"retries":0,"caFile":$1}]}
EOF
}
write_config null
# Starts the proxy (with any command in front of it), waits for its port, and prints the route's answer.
ask() {
  local log="$work/proxy-$RANDOM.log"
  "$@" "$binary" serve --config "$work/config.json" > "$log" 2>&1 &
  local pid=$!
  pids+=("$pid")
  local port=""
  for _ in $(seq 1 100); do
    port=$(grep -o '"msg":"listening".*"port":[0-9]*' "$log" | grep -o '[0-9]*$' || true)
    [ -n "$port" ] && break
    sleep 0.1
  done
  [ -n "$port" ] || { cat "$log" >&2; echo "https-check: FAIL: the proxy did not start" >&2; exit 1; }
  status=$(curl -s -o "$work/answer.json" -w '%{http_code}' "http://127.0.0.1:$port/selfsigned")
  kill "$pid"
  echo "https-check: GET /selfsigned -> $status $(cat "$work/answer.json")"
}

ask env
if [ "$status" != 502 ] || ! grep -q '"code":"upstream_tls_failed"' "$work/answer.json" \
  || ! grep -q 'certificate did not verify' "$work/answer.json"; then
  echo "https-check: FAIL: expected a 502 upstream_tls_failed that names the certificate" >&2
  exit 1
fi
echo "https-check: OK: a self-signed upstream certificate is a 502 that says it did not verify"

expect_items() {
  if [ "$status" != 200 ] || [ "$(cat "$work/answer.json")" != '[{"id":1},{"id":2},{"id":3}]' ]; then
    echo "https-check: FAIL: $1: expected a 200 with the three items" >&2
    exit 1
  fi
  echo "https-check: OK: $1: the route answers 200 with every item"
}

write_config "\"$work/cert.pem\""
ask env
expect_items "with the certificate as the route's caFile"

write_config null
ask env SSL_CERT_FILE="$work/cert.pem"
expect_items "with SSL_CERT_FILE pointing at the certificate"
