// preadv2, RWF_NOWAIT, renameat2, RENAME_EXCHANGE and O_NOATIME need _GNU_SOURCE, which Swift's view of the C library lacks:
// the wrappers are compiled here.
#define _GNU_SOURCE
#include <fcntl.h>
#include <malloc.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/uio.h>
#include "CLinux.h"

ssize_t pageproxy_pread_nowait(int fd, void *buffer, size_t count, off_t offset) {
    struct iovec vector = { buffer, count };
    return preadv2(fd, &vector, 1, offset, RWF_NOWAIT);
}

ssize_t pageproxy_pread_two(int fd, void *first, size_t firstCount, void *second, size_t secondCount, off_t offset, int nowait) {
    struct iovec vectors[2] = { { first, firstCount }, { second, secondCount } };
    return preadv2(fd, vectors, 2, offset, nowait ? RWF_NOWAIT : 0);
}

int pageproxy_rename_exchange(const char *from, const char *to) {
    return renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_EXCHANGE);
}

int pageproxy_open_noatime(const char *path) {
    return open(path, O_RDONLY | O_CLOEXEC | O_NOATIME);
}

int pageproxy_openat_noatime(int directory, const char *path) {
    return openat(directory, path, O_RDONLY | O_CLOEXEC | O_NOATIME);
}

int pageproxy_openat_readonly(int directory, const char *path) {
    return openat(directory, path, O_RDONLY | O_CLOEXEC);
}

int pageproxy_open_directory(const char *path) {
    return open(path, O_RDONLY | O_CLOEXEC | O_DIRECTORY);
}

int pageproxy_name_this_thread(const char *name) {
    return prctl(PR_SET_NAME, (unsigned long)name, 0, 0, 0);
}

// Issue 13, seventh pass: a thread's malloc arena (every Dispatch thread has one; only the main thread's grows by brk)
// is one heap that is made writable a page run at a time as it grows, one `mprotect` per growth: the first read-back
// after a restart, which allocates 10 MB of entries on the walk's and the read-ahead's threads, made ~860 of them
// (~5 % of its CPU). glibc makes each new arena's first heap writable for this much more than asked (M_TOP_PAD), so an
// arena grows that far with no call; it also keeps up to as much of the top of a heap when freeing (not given back to
// the system, so not faulted in again). Setting it turns off glibc's moving mmap threshold (which rises, up to 32 MiB,
// to the size of each mapped block freed, so that large buffers come from the heaps once they are reused): the
// threshold is set where that rise ends, or every allocation past 128 KiB would be a mapping of its own, faulted in
// afresh each time. Set by the PageProxy executable first thing in main, before it starts any thread (and its arena):
// not a constructor in this library, which would change malloc for every program that links PageProxyCore (review).
// The cost: each arena keeps up to the pad of freed memory at its top instead of returning it.
static const int pageproxy_arena_top_pad = 16 << 20;
static const int pageproxy_mmap_threshold = 32 << 20;
static int pageproxy_arena_top_pad_set = 0;

int pageproxy_pad_malloc_arenas(void) {
    if (mallopt(M_MMAP_THRESHOLD, pageproxy_mmap_threshold) == 1 && mallopt(M_TOP_PAD, pageproxy_arena_top_pad) == 1) {
        pageproxy_arena_top_pad_set = pageproxy_arena_top_pad;
    }
    return pageproxy_arena_top_pad_set;
}

int pageproxy_malloc_top_pad(void) {
    return pageproxy_arena_top_pad_set;
}
