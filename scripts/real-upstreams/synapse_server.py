"""matrix-synapse's admin API (its own Twisted homeserver, SQLite), as its docs set it up.

    python synapse_server.py PORT

Route (1000 users made with the admin API, ordered by name; an admin `@admin:localhost` besides, 1001 in all, whose
own row changes under every request it makes, its `last_seen_ts`: the harness lists with `admins=false`):
  /_synapse/admin/v2/users?from=F&limit=L   {"users": [{"name": "@thing-0001:localhost", "displayname": …, …}, …],
                                            "total": 1001, "next_token": "100"}: `from` an offset, `limit` 100 by
                                            default; **`next_token` the next offset as a string**, absent on the
                                            last page; compact JSON, non-ASCII raw UTF-8; `Cache-Control: no-cache,
                                            no-store, must-revalidate`.
Setup, as Synapse's docs do it: `--generate-config` into a fresh folder, the admin registered through the shared-secret
endpoint (`/_synapse/admin/v1/register`, an HMAC of a nonce), the users made with `PUT /_synapse/admin/v2/users/…`
(each row's name as the display name, escapes and non-ASCII included) on a first run on a private port; then the
admin's access token is set to `harness-synapse-token` in the database and this process becomes the homeserver
(exec, so that stopping this PID stops it) on PORT. The folder is left in /tmp (pp-synapse-*) as the exec leaves no
one to remove it; it is small.
"""
import concurrent.futures, hashlib, hmac, json, os, socket, sqlite3, subprocess, sys, tempfile, time, urllib.request
from urllib.parse import quote

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dataset import rows  # noqa: E402

SECRET = "harness-shared-secret"
TOKEN = "harness-synapse-token"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def configure(folder, port):
    import yaml
    path = os.path.join(folder, "homeserver.yaml")
    with open(path) as f:
        config = yaml.safe_load(f)
    config.update(
        listeners=[{"port": port, "bind_addresses": ["127.0.0.1"], "type": "http", "tls": False, "x_forwarded": False,
                    "resources": [{"names": ["client"], "compress": False}]}],
        registration_shared_secret=SECRET, report_stats=False, trusted_key_servers=[],
        suppress_key_server_warning=True, enable_metrics=False, presence={"enabled": False},
        rc_login={"address": {"per_second": 1000, "burst_count": 1000}, "account": {"per_second": 1000, "burst_count": 1000}},
        rc_admin_redaction={"per_second": 1000, "burst_count": 1000})
    with open(path, "w") as f:
        yaml.safe_dump(config, f)
    return path


def call(url, method="GET", body=None, token=None):
    request = urllib.request.Request(url, method=method, data=None if body is None else json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json",
                                              **({"Authorization": f"Bearer {token}"} if token else {})})
    with urllib.request.urlopen(request, timeout=60) as response:
        return json.loads(response.read() or b"{}")


def populate(base):
    nonce = call(base + "/_synapse/admin/v1/register")["nonce"]
    mac = hmac.new(SECRET.encode(), b"\x00".join([nonce.encode(), b"admin", b"harness-password", b"admin"]),
                   hashlib.sha1).hexdigest()
    admin = call(base + "/_synapse/admin/v1/register", "POST",
                 {"nonce": nonce, "username": "admin", "password": "harness-password", "admin": True, "mac": mac})
    token = admin["access_token"]

    def make(row):
        user = quote(f"@thing-{row['id']:04d}:localhost")
        call(f"{base}/_synapse/admin/v2/users/{user}", "PUT", {"displayname": row["note"] or row["name"]}, token)

    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        list(pool.map(make, rows()))
    return token


def main():
    port = int(sys.argv[1])
    folder = tempfile.mkdtemp(prefix="pp-synapse-")
    python = sys.executable
    subprocess.run([python, "-m", "synapse.app.homeserver", "--server-name", "localhost", "--config-path",
                    os.path.join(folder, "homeserver.yaml"), "--generate-config", "--report-stats=no"],
                   cwd=folder, check=True, capture_output=True)
    first_port = free_port()
    config = configure(folder, first_port)
    server = subprocess.Popen([python, "-m", "synapse.app.homeserver", "--config-path", config], cwd=folder,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        base = f"http://127.0.0.1:{first_port}"
        for _ in range(600):
            try:
                urllib.request.urlopen(base + "/_matrix/client/versions", timeout=2).read()
                break
            except OSError:
                time.sleep(0.2)
        token = populate(base)
    finally:
        server.terminate()
        server.wait(timeout=60)
    with sqlite3.connect(os.path.join(folder, "homeserver.db")) as db:
        db.execute("UPDATE access_tokens SET token = ? WHERE token = ?", (TOKEN, token))
    configure(folder, port)
    os.chdir(folder)
    os.execv(python, [python, "-m", "synapse.app.homeserver", "--config-path", config])


if __name__ == "__main__":
    main()
