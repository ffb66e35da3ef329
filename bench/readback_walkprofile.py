#!/usr/bin/env python3
"""The walk's own CPU in a merged read-back, by `perf record` (issue 13, eleventh pass).

    python3 bench/readback_walkprofile.py BINARY[,BINARY...] [--requests N] [--rounds R] [--first] [--keep DIR]

The case of `readback_phases.py` (`/items?mock_total=50000`, 501 cached pages of ~21 KB, a 10.6 MB merged answer,
memo off). Each binary's proxy is restarted over its filled cache directory, asked once (so that every entry is in
memory; with `--first`, not), then `perf record -g` (5 kHz, cpu-clock) runs around N requests by curl. The samples
whose stack holds `PageWalker.walk` are the walk's (the lookups, the keys, the pages; the send is not under it); the
script prints, per binary and round (binaries interleaved), the process's samples and the walk's a request, and the
walk's largest inclusive parts as shares of its samples. Under load, shares and interleaved rounds say more than
absolute counts (a loaded machine makes every instruction take longer). Everything started is stopped by PID.
"""
import argparse, collections, os, re, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from readback_phases import curl, filled_proxies  # noqa: E402
from readback_profile import PATH  # noqa: E402

WALK = "PageWalker.walk"


def stacks(data):
    """The samples of a `perf record` file as lists of demangled symbols, leaf first."""
    text = subprocess.run(["perf", "script", "-i", data, "-F", "tid,ip,sym"], capture_output=True, text=True).stdout
    samples = []
    for block in text.split("\n\n"):
        lines = [line for line in block.split("\n") if line.startswith("\t")]
        samples.append([re.sub(r"\+0x[0-9a-f]+$", "", (line.split(None, 1) + ["?"])[1].strip()) for line in lines])
    names = sorted({name for stack in samples for name in stack})
    demangled = subprocess.run(["swift-demangle", "--simplified", "--compact"], input="\n".join(names),
                               capture_output=True, text=True).stdout.split("\n")
    table = dict(zip(names, demangled))
    return [[table.get(name, name) for name in stack] for stack in samples if stack]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("binaries", help="comma-separated release binaries")
    parser.add_argument("--requests", type=int, default=30)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--first", action="store_true", help="record the first request after each restart instead")
    parser.add_argument("--top", type=int, default=25, help="how many of the walk's parts to print")
    parser.add_argument("--keep", help="keep the perf.data files in this directory")
    args = parser.parse_args()
    binaries = [os.path.abspath(binary) for binary in args.binaries.split(",")]
    keep = args.keep or tempfile.mkdtemp(prefix="walkprofile-")
    os.makedirs(keep, exist_ok=True)
    parts = collections.defaultdict(collections.Counter)
    walked = collections.Counter()
    print(f"load average at start {os.getloadavg()}")
    with filled_proxies(binaries, {}, "pageproxy-walkprofile-") as proxies:
        for round_ in range(args.rounds):
            for index, proxy in enumerate(proxies):
                proxy.restart()
                if not args.first:
                    curl(proxy.url(PATH), {})
                data = os.path.join(keep, f"b{index}-r{round_}.data")
                recorder = subprocess.Popen(["perf", "record", "-F", "5000", "-g", "-p", str(proxy.proc.pid), "-o", data],
                                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                time.sleep(0.5)  # perf attaches asynchronously (a bench script may wait; tests may not)
                requests = 1 if args.first else args.requests
                for _ in range(requests):
                    curl(proxy.url(PATH), {})
                recorder.send_signal(2)
                recorder.wait()
                samples = stacks(data)
                walk = [stack for stack in samples if any(WALK in name for name in stack)]
                walked[index] += len(walk)
                for stack in walk:
                    for name in set(stack):
                        parts[index][name] += 1
                print(f"round {round_} b{index}: {len(samples) / requests:.1f} samples a request, the walk's "
                      f"{len(walk) / requests:.1f} (5 kHz: 0.2 ms a sample)", flush=True)
    print(f"load average after {os.getloadavg()}")
    for index, binary in enumerate(binaries):
        print(f"\nb{index} {binary}: the walk's inclusive parts, % of its {walked[index]} samples")
        for name, count in parts[index].most_common(args.top):
            print(f"{100 * count / max(1, walked[index]):5.1f} % {name[:150]}")


if __name__ == "__main__":
    main()
