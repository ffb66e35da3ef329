#!/usr/bin/env python3
"""/healthz of two PageProxy release binaries side by side against nginx (issue 15: nothing got slower).

    python3 bench/healthz_before_after.py --before PATH [--after PATH] [--seconds 6] [--rounds 3] [--connections 1,32,256] [--threads N]

Starts nginx (one worker, `return 200`) and both binaries (logLevel warning, no routes' traffic) on loopback ports,
then for each connection count runs wrk against the three in interleaved rounds (the order turning each round)
and prints medians and the
ratios to nginx and after/before. Everything started is stopped by PID.
"""
import argparse, os, sys

sys.dont_write_bytecode = True  # no __pycache__ in bench/
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib as B  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--before", required=True)
    parser.add_argument("--after", default=B.BINARY)
    parser.add_argument("--seconds", type=int, default=6)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--connections", default="1,32,256")
    parser.add_argument("--threads", type=int, help="wrk threads (default: 1 for one connection, else 2)")
    args = parser.parse_args()
    B.sigterm_as_interrupt()
    B.ensure_tools("wrk")
    work = B.workdir("healthz-before-after")
    procs = []
    try:
        servers = {}
        nginx_port = B.free_port()
        procs.append(("nginx", B.start_nginx(work, nginx_port)))
        servers["nginx"] = nginx_port
        for label, binary in (("before", args.before), ("after", args.after)):
            port = B.free_port()
            directory = os.path.join(work, label)
            os.makedirs(directory)
            config = {"listen": {"address": "127.0.0.1", "port": port}, "logLevel": "warning",
                      "cache": {"directory": os.path.join(directory, "cache"), "maxBytes": 0},
                      "routes": [{"name": "unused", "upstream": "http://127.0.0.1:9/items",
                                  "pagination": {"scheme": "page-number"}}]}
            procs.append((label, B.start_pageproxy(binary, config, directory)))
            servers[label] = port
        B.log(f"machine: {B.machine_info()}")
        B.log(f"load average before: {os.getloadavg()}")
        for c in [int(x) for x in args.connections.split(",")]:
            rates = {name: [] for name in servers}
            p99 = {name: [] for name in servers}
            names = list(servers)
            for round_number in range(args.rounds):
                # The order turns every round: on a shared machine, whoever runs last in a round meets other load.
                shift = round_number % len(names)
                for name in names[shift:] + names[:shift]:
                    port = servers[name]
                    r = B.wrk(f"http://127.0.0.1:{port}/healthz", c, args.seconds, threads=args.threads or (1 if c == 1 else 2))
                    assert r["non_2xx_3xx"] == 0, r
                    rates[name].append(r["requests_per_s"])
                    p99[name].append(r["p99_ms"])
            med = {name: B.median(v) for name, v in rates.items()}
            B.log(f"c={c:3}  nginx {med['nginx']:9.0f}  before {med['before']:9.0f} ({med['before'] / med['nginx']:.2f}x)  "
                  f"after {med['after']:9.0f} ({med['after'] / med['nginx']:.2f}x)  after/before {med['after'] / med['before']:.2f}  "
                  f"p99 ms before {B.median(p99['before'])} after {B.median(p99['after'])}  rounds {rates}")
        B.log(f"load average after: {os.getloadavg()}")
    finally:
        for name, proc in reversed(procs):
            B.stop(proc, name)


if __name__ == "__main__":
    main()
