"""attack20: start/stop PageProxy and the hostile upstream (loopback, by PID), and a small HTTP client."""
import http.client
import json
import os
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SCRATCH = os.environ.get("ATTACK_SCRATCH", "/tmp/attack20")  # scratch: configs, caches, logs (remove it when done)
os.makedirs(SCRATCH, exist_ok=True)


def wait_port(port, bound=15.0):
    import socket
    end = time.time() + bound
    while time.time() < end:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return True
        except OSError:
            time.sleep(0.05)
    return False


def start_hostile(port):
    p = subprocess.Popen([sys.executable, os.path.join(HERE, "hostile.py"), str(port)],
                         stdout=subprocess.DEVNULL, stderr=open(os.path.join(SCRATCH, "hostile-%d.err" % port), "w"))
    assert wait_port(port), "hostile did not start"
    return p


def write_config(path, port, cache_dir, routes, memo=None):
    cfg = {"listen": {"address": "127.0.0.1", "port": port},
           "cache": {"directory": cache_dir, "maxBytes": 268435456},
           "logLevel": "warning", "routes": routes}
    if memo is not None:
        cfg["cache"]["memoBytes"] = memo
    with open(path, "w") as f:
        json.dump(cfg, f, indent=1)


def start_proxy(binary, config, port, log):
    p = subprocess.Popen([binary, "serve", "--config", config], stdout=open(log, "a"), stderr=subprocess.STDOUT)
    if not wait_port(port, 30):
        p.kill()
        raise SystemExit("proxy did not start; see " + log)
    return p


def stop(p, sig=signal.SIGTERM):
    if p.poll() is None:
        p.send_signal(sig)
        try:
            p.wait(10)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait(5)


def get(port, target, headers=None, timeout=30, method="GET"):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        c.request(method, target, headers=headers or {})
        r = c.getresponse()
        try:
            body = r.read()
        except http.client.IncompleteRead as e:  # an NDJSON stream cut after its error line
            body = e.partial
        return r.status, dict((k.lower(), v) for k, v in r.getheaders()), body
    finally:
        c.close()


def parse_items(status, headers, body, ndjson):
    """Returns (items or None, error text or None)."""
    if ndjson and status != 200:
        return [], "status %d %s" % (status, body[:200])
    if ndjson:
        items, err = [], None
        for line in body.split(b"\n"):
            if not line:
                continue
            if line.startswith(b"!pageproxy-error"):
                err = line.decode(errors="replace")[:200]
                continue
            items.append(json.loads(line))
        if status != 200:
            err = err or ("status %d %s" % (status, body[:200]))
        return items, err
    if status != 200:
        return None, "status %d %s" % (status, body[:200].decode(errors="replace"))
    return json.loads(body), None
