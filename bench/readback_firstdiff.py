#!/usr/bin/env python3
"""Where the first request after a restart spends what the second does not, per thread (issue 13, seventeenth pass).

    python3 bench/readback_firstdiff.py BINARY [--restarts N] [--ndjson] [--memo] [--top K] [--keep DIR]

The case of `readback_phases.py` (`/items?mock_total=50000`, 501 cached pages, 10.6 MB merged, memo off). The proxy
is restarted N times over its filled cache directory; `perf record -g` (10 kHz, cpu-clock) runs around the first and
then the second request after each restart. Printed: the samples a request of each thread kind (the thread's name:
`root.default-qos` is the cooperative pool, `default-qos.overcommit` the read-ahead's serial queue, `pageproxy.epoll`
the socket loop), and, for each kind, the frames whose inclusive samples a request grow most from the second request
to the first (first, second) and the largest self samples that do. At 10 kHz a sample is 0.1 ms of CPU; `perf` with
call graphs inflates the absolute numbers (compare shares, or `readback_perstat.py` for CPU without it). Libc's
system-call wrappers have no frame pointers: a read's kernel samples are not under the Swift caller that made it.
With `--memo` (twentieth pass) the proxy runs with the memo on (64 MiB) and keeps the answer's entry, as
`readback_phases.py --memo` does: the first request is then the read of that entry and its send, the second a memo
hit sent from the same file; the first request's own largest self and inclusive frames are printed too (not only what
it does more than the second). Everything started is stopped by PID.
"""
import argparse, collections, os, re, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from readback_phases import curl, filled_proxies  # noqa: E402
from readback_profile import NDJSON, PATH  # noqa: E402


def samples(data, binary):
    """(thread name, frames leaf first, demangled) of every sample of a `perf record -a` file taken in the processes of
    the proxy (twentieth pass: `perf record -p` records nothing on this VM). The proxy is the process, among those
    with a thread named as the binary's file or `pageproxy.epoll` (the mock's too, idle while the pages are read back;
    another helper's proxies), with the most samples."""
    text = subprocess.run(["perf", "script", "-i", data, "-F", "comm,pid,tid,ip,sym"], capture_output=True, text=True).stdout
    blocks = [[line for line in block.split("\n") if line.strip()] for block in text.split("\n\n")]
    blocks = [lines for lines in blocks if lines]
    heads = [re.match(r"\s*(.*?)\s+(\d+)/(\d+)\s*$", lines[0]) for lines in blocks]
    name = os.path.basename(binary)[:15]
    candidates = {head.group(2) for head in heads if head and head.group(1) in (name, "pageproxy.epoll")}
    counts = collections.Counter(head.group(2) for head in heads if head and head.group(2) in candidates)
    pids = {counts.most_common(1)[0][0]} if counts else set()
    found = []
    for lines, head in zip(blocks, heads):
        if not head or head.group(2) not in pids:
            continue
        frames = [re.sub(r"\+0x[0-9a-f]+$", "", (line.strip().split(None, 1) + ["?"])[1].strip()) for line in lines[1:]]
        found.append((head.group(1), frames))
    names = sorted({name for _, frames in found for name in frames})
    demangled = subprocess.run(["swift-demangle", "--simplified", "--compact"], input="\n".join(names),
                               capture_output=True, text=True).stdout.split("\n")
    table = dict(zip(names, demangled))
    return [(thread, [table.get(name, name) for name in frames]) for thread, frames in found]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("binary")
    parser.add_argument("--restarts", type=int, default=4)
    parser.add_argument("--ndjson", action="store_true")
    parser.add_argument("--memo", action="store_true", help="the memo on: the first request reads the answer's entry")
    parser.add_argument("--top", type=int, default=40)
    parser.add_argument("--keep", help="keep the perf.data files in this directory")
    args = parser.parse_args()
    headers = NDJSON if args.ndjson else {}
    keep = args.keep or tempfile.mkdtemp(prefix="firstdiff-")
    os.makedirs(keep, exist_ok=True)
    threads = collections.defaultdict(collections.Counter)  # request -> thread kind -> samples
    inclusive = collections.defaultdict(collections.Counter)  # (request, kind) -> frame -> samples
    own = collections.defaultdict(collections.Counter)
    print(f"load average at start {os.getloadavg()}")
    with filled_proxies([os.path.abspath(args.binary)], headers, "pageproxy-firstdiff-",
                        memo={0} if args.memo else set()) as proxies:
        proxy = proxies[0]
        for round_ in range(args.restarts):
            proxy.restart()
            for request in (1, 2):
                data = os.path.join(keep, f"q{request}-r{round_}.data")
                recorder = subprocess.Popen(["perf", "record", "-e", "cpu-clock", "-F", "10000", "-g", "-a", "-o", data],
                                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                time.sleep(2.5)  # perf -a starts asynchronously, slowly under load (a bench script may wait; tests may not)
                head, total, _ = curl(proxy.url(PATH), headers)
                recorder.send_signal(2)
                recorder.wait()
                print(f"restart {round_} request {request}: head {head:.1f} ms, total {total:.1f} ms", flush=True)
                for thread, frames in samples(data, args.binary):
                    threads[request][thread] += 1
                    for name in set(frames):
                        inclusive[(request, thread)][name] += 1
                    if frames:
                        own[(request, thread)][frames[0]] += 1
    print(f"load average after {os.getloadavg()}")
    n = args.restarts
    for request in (1, 2):
        print(f"\nrequest {request}: " + ", ".join(f"{thread} {count / n:.1f}" for thread, count in threads[request].most_common()))
    for thread, count in threads[1].most_common():
        if count / n < 5:
            continue
        if args.memo:
            for label, table in (("inclusive", inclusive), ("self", own)):
                print(f"\n{thread}: {label} samples a request, the first request")
                for name, samples_ in table[(1, thread)].most_common(args.top):
                    print(f"  {samples_ / n:7.1f} {name[:140]}")
        for label, table in (("inclusive", inclusive), ("self", own)):
            first, second = table[(1, thread)], table[(2, thread)]
            grown = sorted(((first[name] - second[name]) / n, name) for name in set(first) | set(second))[::-1]
            print(f"\n{thread}: {label} samples a request, first minus second (first, second)")
            for delta, name in grown[:args.top]:
                print(f"  {delta:7.1f} ({first[name] / n:6.1f}, {second[name] / n:6.1f}) {name[:140]}")


if __name__ == "__main__":
    main()
