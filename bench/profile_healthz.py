#!/usr/bin/env python3
"""Where /healthz time goes: perf profile and syscall counts of PageProxy under wrk (issue 9's missed aim).

    python3 bench/profile_healthz.py [--connections 32] [--seconds 8]

Needs `perf` (apt-get install linux-perf) and wrk. Starts PageProxy (release build, logLevel warning as in
bench/peers.py), runs wrk on /healthz, records `perf record -g` on the PageProxy process for --seconds while wrk
runs, then prints the top symbols (self time), the time by shared object, and the system calls per request
(`perf trace -s`, if it works here). Output also goes to bench/results/profile-healthz-<time>.txt.
"""
import argparse, os, subprocess, sys, threading, time

sys.dont_write_bytecode = True  # no __pycache__ in bench/
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib as B  # noqa: E402
import peers  # noqa: E402


def ctx_switches(pid):
    """Voluntary + involuntary context switches of every thread of `pid`."""
    total = 0
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/status") as f:
                for line in f:
                    if line.startswith(("voluntary_ctxt_switches", "nonvoluntary_ctxt_switches")):
                        total += int(line.split()[1])
        except FileNotFoundError:
            pass
    return total


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--seconds", type=int, default=8)
    args = parser.parse_args()
    B.sigterm_as_interrupt()
    binary = B.ensure_binary()
    os.makedirs(B.RESULTS, exist_ok=True)
    work = B.workdir("pageproxy-profile-")
    port = B.free_port()
    data = os.path.join(work, "perf.data")
    out = []
    pp = None
    try:
        pp = B.start_pageproxy(binary, peers.pageproxy_config(port, 9, 8, os.path.join(work, "cache")), work)
        url = f"http://127.0.0.1:{port}/healthz"
        wrk_result = {}
        t = threading.Thread(target=lambda: wrk_result.update(B.wrk(url, args.connections, args.seconds + 4)))
        t.start()
        time.sleep(2)
        subprocess.run(["perf", "record", "-F", "499", "-g", "-o", data, "-p", str(pp.pid), "--", "sleep",
                        str(args.seconds)], check=True, capture_output=True, timeout=args.seconds + 60)
        t.join(timeout=args.seconds + 70)
        out.append(f"wrk -c{args.connections}: {wrk_result.get('requests_per_s', 0):,.0f} req/s, "
                   f"p99 {wrk_result.get('p99_ms')} ms (while perf sampled at 499 Hz)\n")
        def report(*extra):
            return subprocess.run(["perf", "report", "-i", data, "--stdio", "--no-children", *extra],
                                  capture_output=True, text=True, timeout=300).stdout
        out.append("== self time by shared object ==")
        out.append("\n".join(l for l in report("--sort", "dso", "-g", "none").splitlines()
                             if l.strip() and not l.startswith("#"))[:3000])
        out.append("\n== top symbols (self time) ==")
        out.append("\n".join([l for l in report("--sort", "dso,sym", "-g", "none").splitlines()
                              if l.strip() and not l.startswith("#")][:45]))
        out.append("\n== callers of the top kernel entry points (children view, syscalls) ==")
        children = subprocess.run(["perf", "report", "-i", data, "--stdio", "--children", "--sort", "sym", "-g",
                                   "none"], capture_output=True, text=True, timeout=300).stdout
        out.append("\n".join([l for l in children.splitlines() if l.strip() and not l.startswith("#")][:40]))
        # Syscalls per request: count for a fixed number of requests with perf trace, if permitted.
        trace = subprocess.run(["perf", "trace", "-s", "-p", str(pp.pid), "--", "sleep", "3"],
                               capture_output=True, text=True, timeout=60)
        out.append("\n== perf trace -s (3 s, without wrk running: idle baseline) ==")
        out.append((trace.stdout + trace.stderr)[-1500:])
        t2 = threading.Thread(target=lambda: wrk_result.update(B.wrk(url, args.connections, 5)))
        t2.start()
        time.sleep(1)
        trace = subprocess.run(["perf", "trace", "-s", "-p", str(pp.pid), "--", "sleep", "2"],
                               capture_output=True, text=True, timeout=60)
        t2.join(timeout=70)
        out.append(f"\n== perf trace -s (2 s under wrk -c{args.connections}; wrk saw "
                   f"{wrk_result.get('requests', 0)} requests in 5 s) ==")
        out.append((trace.stdout + trace.stderr)[-6000:])
        # Context switches per request, PageProxy against nginx (one worker), both under the same wrk load.
        nginx = None
        try:
            nport = B.free_port()
            nginx = B.start_nginx(work, nport)
            out.append(f"\n== context switches per request (wrk -c{args.connections}, 5 s each) ==")
            workers = [int(c) for c in open(f"/proc/{nginx.pid}/task/{nginx.pid}/children").read().split()]
            for name, pids, p in (("nginx (master + 1 worker)", [nginx.pid] + workers, nport),
                                  ("PageProxy", [pp.pid], port)):
                before = sum(ctx_switches(x) for x in pids)
                r = B.wrk(f"http://127.0.0.1:{p}/healthz", args.connections, 5)
                after = sum(ctx_switches(x) for x in pids)
                out.append(f"{name}: {r['requests_per_s']:,.0f} req/s, {(after - before) / r['requests']:.3f} "
                           f"context switches per request ({after - before} for {r['requests']} requests)")
        finally:
            B.stop(nginx, "nginx")
    finally:
        B.stop(pp, "PageProxy")
    text = "\n".join(out)
    path = os.path.join(B.RESULTS, f"profile-healthz-{time.strftime('%Y%m%d-%H%M%S')}.txt")
    with open(path, "w") as f:
        f.write(text + "\n")
    print(text)
    B.log(f"written to {path}")


if __name__ == "__main__":
    main()
