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

Twenty-second pass: samples are the proxy's PID's only, and a split of each request's samples into parts (`PARTS`:
system calls by call, page faults, hashes, decoding, allocation, type metadata, task switches, the walk's and the
store's bookkeeping, the send) is printed per thread kind, in ms of samples a request and µs a page (501 pages).
"""
import argparse, collections, os, re, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from readback_phases import curl, filled_proxies  # noqa: E402
from readback_profile import NDJSON, PATH  # noqa: E402


def samples(data, pid):
    """(thread name, frames leaf first, demangled) of every sample of a `perf record -a` file taken in the proxy's
    process, `pid` (twentieth pass: `perf record -p` records nothing on this VM; twenty-second pass: by its PID, not by
    its threads' names, which another helper's proxies on a shared machine share)."""
    text = subprocess.run(["perf", "script", "-i", data, "-F", "comm,pid,tid,ip,sym"], capture_output=True, text=True).stdout
    blocks = [[line for line in block.split("\n") if line.strip()] for block in text.split("\n\n")]
    blocks = [lines for lines in blocks if lines]
    heads = [re.match(r"\s*(.*?)\s+(\d+)/(\d+)\s*$", lines[0]) for lines in blocks]
    pids = {str(pid)}
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


PAGES = 501

# (part, frame substrings): a sample is the first part any of whose substrings is in one of its frames (kernel calls
# first, then what runs under Swift callers).
PARTS = [
    ("sys openat2", ("do_sys_openat2",)),
    ("sys fstat", ("__do_sys_newfstat", "vfs_fstat", "__do_sys_newfstatat", "vfs_statx")),
    ("sys preadv2 (copy)", ("_copy_to_iter", "copy_page_to_iter")),
    ("sys preadv2 (rest)", ("do_preadv", "__x64_sys_preadv2", "vfs_readv")),
    ("sys close", ("__x64_sys_close", "__fput", "close_fd", "task_work_run")),
    ("sys sendmsg", ("__sys_sendmsg",)),
    ("sys futex/sched", ("do_futex", "futex_wait", "futex_wake", "__schedule", "schedule_hrtimeout")),
    ("sys other", ("entry_SYSCALL_64",)),
    ("page faults", ("asm_exc_page_fault",)),
    ("XXH64", ("XXHash64",)),
    ("keys (SHA-256, URLs)", ("CacheKeyPages.key", "SHA256", "CacheKey.init", "guessNext", "CacheKeyTemplate")),
    ("type metadata", ("swift_getTypeByMangled", "swift_conformsToProtocol", "__swift_instantiate", "swift_getGenericMetadata",
                       "swift_getSingletonMetadata", "_swift_getGenericMetadata")),
    ("decode (header, scan)", ("CacheEntryFormat.",)),
    ("file read (user side)", ("CacheFileSystem.",)),
    ("store lookup/keep", ("DiskStore.",)),
    ("send (user side)", ("AsyncSocket.write", "AsyncSocket.nest", "gatheredRun")),
    ("walk bookkeeping", ("PageWalker", "makeCachedPage", "CachingPageSource.freshHit", "MergedAnswerRenderer", "MergedHeldPages",
                          "AggregateResponder", "RouteWalk")),
    ("task switches, executor", ("swift_task_switch", "swift_job_run", "swift_task_enqueue", "_dispatch_", "swift::runJob",
                                 "swift_continuation", "swift_task_")),
]


def part_of(frames):
    for part, needles in PARTS:
        for frame in frames:
            if any(needle in frame for needle in needles):
                return part
    return "other"


def print_split(threads, parts, restarts):
    """Each thread kind's samples a request by part (`PARTS`), first and second request, in ms and in µs a page."""
    for thread, _ in threads[1].most_common():
        if threads[1][thread] / restarts < 5:
            continue
        print(f"\n{thread}: samples a request by part, ms (µs a page of {PAGES}): first, second, first minus second")
        first, second = parts[(1, thread)], parts[(2, thread)]
        for part in sorted(set(first) | set(second), key=lambda name: -first[name]):
            a, b = first[part] / restarts / 10, second[part] / restarts / 10
            print(f"  {part:26} {a:6.2f} ({a * 1000 / PAGES:5.1f})  {b:6.2f} ({b * 1000 / PAGES:5.1f})  {a - b:6.2f} ({(a - b) * 1000 / PAGES:5.1f})")
        a, b = sum(first.values()) / restarts / 10, sum(second.values()) / restarts / 10
        print(f"  {'all':26} {a:6.2f} ({a * 1000 / PAGES:5.1f})  {b:6.2f} ({b * 1000 / PAGES:5.1f})  {a - b:6.2f} ({(a - b) * 1000 / PAGES:5.1f})")


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
    parts = collections.defaultdict(collections.Counter)  # (request, kind) -> part -> samples
    print(f"load average at start {os.getloadavg()}")
    with filled_proxies([os.path.abspath(args.binary)], headers, "pageproxy-firstdiff-",
                        memo={0} if args.memo else set()) as proxies:
        proxy = proxies[0]
        for round_ in range(args.restarts):
            proxy.restart()
            for request in (1, 2):
                data = os.path.join(keep, f"q{request}-r{round_}-p{proxy.proc.pid}.data")
                recorder = subprocess.Popen(["perf", "record", "-e", "cpu-clock", "-F", "10000", "-g", "-a", "-o", data],
                                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                time.sleep(2.5)  # perf -a starts asynchronously, slowly under load (a bench script may wait; tests may not)
                head, total, _ = curl(proxy.url(PATH), headers)
                recorder.send_signal(2)
                recorder.wait()
                print(f"restart {round_} request {request}: head {head:.1f} ms, total {total:.1f} ms", flush=True)
                for thread, frames in samples(data, proxy.proc.pid):
                    threads[request][thread] += 1
                    parts[(request, thread)][part_of(frames)] += 1
                    for name in set(frames):
                        inclusive[(request, thread)][name] += 1
                    if frames:
                        own[(request, thread)][frames[0]] += 1
    print(f"load average after {os.getloadavg()}")
    n = args.restarts
    for request in (1, 2):
        print(f"\nrequest {request}: " + ", ".join(f"{thread} {count / n:.1f}" for thread, count in threads[request].most_common()))
    print_split(threads, parts, n)
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
