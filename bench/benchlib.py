"""Shared helpers for the bench/ scripts (Python stdlib only): ports, processes started and stopped by PID,
/proc memory, wrk and nginx. Everything listens on 127.0.0.1 and talks only to 127.0.0.1."""
import json, os, re, shutil, signal, socket, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCH = os.path.join(ROOT, "bench")
VENV = os.path.join(BENCH, ".venv")
VENV_PYTHON = os.path.join(VENV, "bin", "python")
RESULTS = os.path.join(BENCH, "results")
BINARY = os.path.join(ROOT, ".build", "release", "PageProxy")


def log(*parts):
    print(*parts, file=sys.stderr, flush=True)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def sigterm_as_interrupt():
    """So that `finally:` blocks stop what we started when the script itself gets SIGTERM."""
    def handler(signum, frame):
        raise KeyboardInterrupt(f"signal {signum}")
    signal.signal(signal.SIGTERM, handler)


def ensure_binary(binary=BINARY, rebuild=False):
    if rebuild or not os.path.exists(binary):
        log("building PageProxy in release mode (swift build -c release --product PageProxy) ...")
        subprocess.run(["swift", "build", "-c", "release", "--product", "PageProxy"], cwd=ROOT, check=True,
                       stdout=subprocess.DEVNULL)
    return binary


def ensure_tools(*names):
    """wrk and nginx come from Debian (nginx-light, wrk); installed with apt-get when missing and we are root."""
    missing = [n for n in names if shutil.which(n) is None and not os.path.exists(f"/usr/sbin/{n}")]
    if not missing:
        return
    packages = {"nginx": "nginx-light", "wrk": "wrk"}
    wanted = sorted({packages[n] for n in missing})
    if os.geteuid() != 0:
        sys.exit(f"missing {missing}: run  sudo apt-get install -y {' '.join(wanted)}")
    log(f"installing {wanted} from Debian ...")
    subprocess.run(["apt-get", "update", "-qq"], check=True)
    subprocess.run(["apt-get", "install", "-y", "-qq", *wanted], check=True, stdout=subprocess.DEVNULL)


def ensure_venv():
    """The peers live in bench/.venv (ignored), pinned by bench/requirements.txt."""
    requirements = os.path.join(BENCH, "requirements.txt")
    stamp = os.path.join(VENV, ".requirements-installed")
    if os.path.exists(stamp) and open(stamp).read() == open(requirements).read():
        return VENV_PYTHON
    if not os.path.exists(VENV_PYTHON):
        log("creating bench/.venv ...")
        subprocess.run([sys.executable, "-m", "venv", VENV], check=True)
    log("installing bench/requirements.txt into bench/.venv ...")
    subprocess.run([VENV_PYTHON, "-m", "pip", "install", "-q", "-r", requirements], check=True)
    shutil.copyfile(requirements, stamp)
    return VENV_PYTHON


def nginx_binary():
    return shutil.which("nginx") or "/usr/sbin/nginx"


def wait_listening(port, proc, limit=15.0, name="server", poll=0.05):
    deadline = time.time() + limit
    while time.time() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{name} exited early with status {proc.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(poll)
    raise RuntimeError(f"{name} did not start listening on {port}")


def stop(proc, name="process", grace=15.0):
    """Stops one process we started, by its PID: SIGTERM, then SIGKILL after `grace` seconds."""
    if proc is None or proc.poll() is not None:
        return
    try:
        os.kill(proc.pid, signal.SIGTERM)
        proc.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        log(f"{name} (pid {proc.pid}) ignored SIGTERM for {grace}s; SIGKILL")
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=5)
    except ProcessLookupError:
        pass


def proc_status(pid):
    """The fields of /proc/<pid>/status, as strings ("VmRSS" -> "12345 kB")."""
    fields = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            key, _, value = line.partition(":")
            fields[key] = value.strip()
    return fields


def proc_memory(pid):
    """VmRSS, VmHWM (kB) and thread count from /proc/PID/status."""
    fields = proc_status(pid)
    return {"VmRSS_kB": int(fields["VmRSS"].split()[0]), "VmHWM_kB": int(fields["VmHWM"].split()[0]),
            "RssAnon_kB": int(fields.get("RssAnon", "0 kB").split()[0]),
            "RssFile_kB": int(fields.get("RssFile", "0 kB").split()[0]),
            "threads": int(fields["Threads"])}


def start_mock(binary, port, latency_ms, page_size=20, items=250):
    proc = subprocess.Popen([binary, "mock", "--address", "127.0.0.1", "--port", str(port), "--latency-ms",
                             str(latency_ms), "--page-size", str(page_size), "--items", str(items)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_listening(port, proc, name="mock")
    return proc


def start_pageproxy(binary, config, workdir):
    path = os.path.join(workdir, "pageproxy.json")
    with open(path, "w") as f:
        json.dump(config, f, indent=1)
    subprocess.run([binary, "check-config", path], check=True, stdout=subprocess.DEVNULL)
    errlog = open(os.path.join(workdir, "pageproxy.log"), "wb")
    proc = subprocess.Popen([binary, "serve", "--config", path], stdout=errlog, stderr=subprocess.STDOUT,
                            cwd=workdir)
    wait_listening(config["listen"]["port"], proc, name="PageProxy")
    return proc


def start_nginx(workdir, port, static_files=None, sendfile=False):
    """nginx, one worker, access_log off; `location = /healthz { return 200 '{"status":"ok"}'; }`, and
    static_files {url_path: bytes} served from a root in workdir. `sendfile` off is nginx's own default (it reads
    each file and writes it, a copy as PageProxy's writes are); Debian's packaged nginx.conf turns it on."""
    root = os.path.join(workdir, "www")
    os.makedirs(root, exist_ok=True)
    os.chmod(workdir, 0o755)
    os.chmod(root, 0o755)
    for url_path, data in (static_files or {}).items():
        target = os.path.join(root, url_path.lstrip("/"))
        with open(target, "wb") as f:
            f.write(data)
        os.chmod(target, 0o644)
    conf = os.path.join(workdir, "nginx.conf")
    with open(conf, "w") as f:
        f.write(f"""worker_processes 1;
daemon off;
pid {workdir}/nginx.pid;
error_log {workdir}/nginx-error.log warn;
events {{ worker_connections 4096; }}
http {{
    access_log off;
    sendfile {"on" if sendfile else "off"};
    client_body_temp_path {workdir}/tmp-body;
    proxy_temp_path {workdir}/tmp-proxy;
    fastcgi_temp_path {workdir}/tmp-fastcgi;
    uwsgi_temp_path {workdir}/tmp-uwsgi;
    scgi_temp_path {workdir}/tmp-scgi;
    types {{ application/json json; }}
    server {{
        listen 127.0.0.1:{port};
        root {root};
        location = /healthz {{ default_type application/json; return 200 '{{"status":"ok"}}'; }}
    }}
}}
""")
    proc = subprocess.Popen([nginx_binary(), "-c", conf, "-e", os.path.join(workdir, "nginx-error.log")],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_listening(port, proc, name="nginx")
    return proc


def _ms(text):
    value, unit = re.fullmatch(r"([\d.]+)(us|ms|s|m)", text).groups()
    return float(value) * {"us": 0.001, "ms": 1.0, "s": 1000.0, "m": 60000.0}[unit]


def wrk(url, connections, seconds, threads=2, headers=(), script=None, timeout_s=10):
    """Runs wrk (bounded by -d) and parses rate, latency percentiles and errors."""
    threads = max(1, min(threads, connections))
    cmd = ["wrk", f"-t{threads}", f"-c{connections}", f"-d{seconds}s", f"--timeout={timeout_s}s", "--latency"]
    for h in headers:
        cmd += ["-H", h]
    if script:
        cmd += ["-s", script]
    cmd.append(url)
    out = subprocess.run(cmd, capture_output=True, text=True, check=True, timeout=seconds + 60).stdout
    result = {"url": url, "connections": connections, "threads": threads, "seconds": seconds,
              "requests_per_s": float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1)),
              "requests": int(re.search(r"(\d+) requests in", out).group(1)),
              "non_2xx_3xx": 0, "socket_errors": {}, "raw": out}
    for pct in ("50", "75", "90", "99"):
        m = re.search(rf"^\s+{pct}%\s+([\d.]+\w+)", out, re.M)
        result[f"p{pct}_ms"] = _ms(m.group(1)) if m else None
    m = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    if m:
        result["non_2xx_3xx"] = int(m.group(1))
    m = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", out)
    if m:
        result["socket_errors"] = dict(zip(("connect", "read", "write", "timeout"), map(int, m.groups())))
    return result


def machine_info():
    def run(cmd):
        try:
            return subprocess.run(cmd, capture_output=True, text=True, timeout=30).stdout.strip()
        except Exception as e:  # noqa: BLE001 - informational only
            return f"unavailable ({e})"
    model = ""
    for line in run(["lscpu"]).splitlines():
        if line.startswith("Model name:"):
            model = line.split(":", 1)[1].strip()
    mem_kb = 0
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemTotal:"):
                mem_kb = int(line.split()[1])
    return {"nproc": os.cpu_count(), "cpu_model": model, "mem_GiB": round(mem_kb / 1024 / 1024, 1),
            "debian": open("/etc/debian_version").read().strip() if os.path.exists("/etc/debian_version") else "",
            "kernel": os.uname().release,
            "swift": run(["swift", "--version"]).splitlines()[0] if shutil.which("swift") else "",
            "python": sys.version.split()[0], "loadavg_at_start": os.getloadavg(),
            "nginx": run([nginx_binary(), "-v"]) or subprocess.run([nginx_binary(), "-v"], capture_output=True,
                                                                   text=True).stderr.strip(),
            "wrk": (subprocess.run(["wrk", "-v"], capture_output=True, text=True).stdout.splitlines() or [""])[0]}


def median(values):
    s = sorted(values)
    n = len(s)
    if n == 0:
        return float("nan")
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


def workdir(prefix):
    return tempfile.mkdtemp(prefix=prefix)
