#!/usr/bin/env python3
"""Where a `perf record -g` profile of PageProxy goes, by PageProxy's own frames and by kind (issue 13, twenty-fifth pass).

    python3 bench/perf_by_frame.py PERF_DATA BINARY_NAME [--top 40]

Async Swift functions split into partial functions whose callers perf cannot see ("[unknown]" above them), so
`perf report --children` undercounts whole requests. This gives each sample to the nearest frame of the binary's own
code (demangled, simplified), counting what it calls in libraries and the kernel, and by the leaf side of its stack to a
kind (the `sendmsg`, retain/release, the task allocator, executor hops and enqueues, malloc, the scheduler), per thread
name. With `perf record -F 999`, samples a request (the sample count over the requests served while sampling) is about
µs of CPU a request. Example: `python3 bench/profile_memo.py --mode walk --binary B --keep-data /tmp/x/walk.data`, then
`python3 bench/perf_by_frame.py /tmp/x/walk.data PageProxy`.
"""
import argparse, collections, re, subprocess

KINDS = [("sendmsg", r"sendmsg"), ("read syscall", r"\bread\b|__libc_read|ksys_read"), ("epoll_wait", r"epoll_wait"),
         ("futex/semaphore", r"futex|sem_post|sem_wait|_dispatch_semaphore|pthread_cond"), ("utimensat", r"utimensat"),
         ("task allocator", r"swift_task_alloc|swift_task_dealloc|StackAllocator"),
         ("task switch/enqueue", r"swift_task_switch|getPreferredTaskExecutor|withStatusRecordLock|swift_task_enqueue|flagAsAndEnqueue|_dispatch_root_queue_poke|dispatch_async"),
         ("retain/release", r"swift_retain|swift_release|swift_bridgeObject|doDecrementSlow|_swift_release_dealloc|swift_isUniquely"),
         ("malloc/free", r"malloc|cfree|_int_free|_int_malloc|malloc_consolidate"),
         ("scheduler (kernel)", r"schedule|finish_task_switch|__switch_to|pick_next|dequeue_task|enqueue_task|try_to_wake_up"),
         ("clock", r"clock_gettime|vdso")]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("data")
    parser.add_argument("binary", help="the binary's file name as perf shows it (PageProxy, or a copy's name)")
    parser.add_argument("--top", type=int, default=40)
    args = parser.parse_args()
    out = subprocess.run(["perf", "script", "-i", args.data, "-F", "comm,tid,ip,sym,dso"], capture_output=True, text=True,
                         timeout=600).stdout
    own, kinds, total = collections.Counter(), collections.Counter(), 0
    for sample in out.split("\n\n"):
        lines = [line.strip() for line in sample.strip().splitlines()]
        if len(lines) < 2:
            continue
        total += 1
        frames = [m.groups() for m in (re.match(r"\S+ (.*) \((.*)\)$", line) for line in lines[1:]) if m]
        frame = next((sym for sym, dso in frames if dso.endswith("/" + args.binary)), None)
        if frame is None:
            frame = next((f"{sym} [{dso.rsplit('/', 1)[-1]}]" for sym, dso in frames if "kernel" not in dso), "[kernel only]")
        own[frame] += 1
        kind = "other"
        for sym, dso in frames:
            if dso.endswith("/" + args.binary):
                break
            hit = next((name for name, pattern in KINDS if re.search(pattern, sym)), None)
            if hit:
                kind = hit
                break
        kinds[(lines[0].split()[0], kind)] += 1
    names = list(own)
    demangled = subprocess.run(["swift-demangle", "--simplified", "--compact"], input="\n".join(names), capture_output=True,
                               text=True).stdout.splitlines()
    readable = dict(zip(names, demangled)) if len(demangled) == len(names) else {}
    print(f"{total} samples\n-- by kind (thread, kind) --")
    for (thread, kind), count in kinds.most_common():
        print(f"{100 * count / total:6.2f}%  {thread:18s} {kind}")
    print("-- by nearest own frame --")
    for name, count in own.most_common(args.top):
        print(f"{100 * count / total:6.2f}%  {readable.get(name, name)[:180]}")


if __name__ == "__main__":
    main()
