// preadv2, RWF_NOWAIT, renameat2, RENAME_EXCHANGE and O_NOATIME need _GNU_SOURCE, which Swift's view of the C library lacks:
// the wrappers are compiled here.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <malloc.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>
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

// An entry is a regular file PageProxy renamed into place. Not through a symbolic link (a link to a large file was
// read in full before it was refused), and never waiting to open (a FIFO put in an entry's place blocked the thread
// that opened it until a writer came, and with it the cooperative pool: attack13 H1). O_NONBLOCK changes nothing
// for a regular file's reads; the caller refuses what `fstat` says is not a regular file.
//
// Under a held directory, no symbolic link is followed anywhere in `path` either (attack15 L1: a fan-out folder made a
// link to another directory had files outside the cache read, and removed, as entries): `openat2` with
// RESOLVE_NO_SYMLINKS, one call as before. Where the kernel (before 5.6) or a seccomp filter refuses `openat2`, the
// folder is checked with `fstatat` first.
static int openat_entry(int directory, const char *path, int flags) {
    if (directory == AT_FDCWD) return openat(directory, path, flags);
    struct open_how how = { .flags = (unsigned long long)flags, .resolve = RESOLVE_NO_SYMLINKS };
    int fd = (int)syscall(SYS_openat2, directory, path, &how, sizeof how);
    if (fd >= 0 || (errno != ENOSYS && errno != EPERM)) return fd;
    const char *slash = strrchr(path, '/');
    if (slash != NULL && (size_t)(slash - path) < PATH_MAX) {
        char folder[PATH_MAX];
        memcpy(folder, path, (size_t)(slash - path));
        folder[slash - path] = 0;
        struct stat info;
        if (fstatat(directory, folder, &info, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISDIR(info.st_mode)) {
            errno = ELOOP;
            return -1;
        }
    }
    return openat(directory, path, flags);
}

int pageproxy_openat_noatime(int directory, const char *path) {
    return openat_entry(directory, path, O_RDONLY | O_CLOEXEC | O_NOATIME | O_NOFOLLOW | O_NONBLOCK);
}

int pageproxy_openat_readonly(int directory, const char *path) {
    return openat_entry(directory, path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
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

// Issue 13, seventeenth pass: even with the pad, each page of an arena is faulted in on its first write, one trap a
// 4 KiB page: the first walk after a restart keeps ~10 MB of entries it reads, ~3,100 faults (~40 % of its reads' CPU).
// A heap warmed at start has those pages already. Dispatch's threads each get an arena of their own (up to 8 a core),
// so one warmed arena would serve only the thread that warmed it: the process is kept to the main arena
// (`M_ARENA_MAX` 1, set with the pad, before any thread starts), which serve warms once (`pageproxy_warm_malloc_heap`).
// Small blocks come from each thread's cache (tcache) without the arena's lock; larger ones take it.
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif
static int pageproxy_single_arena = 0;
static int pageproxy_decide_huge_pages(void);

int pageproxy_keep_one_malloc_arena(void) {
    // Huge pages are advised for thread arenas' heaps only (below): where they are taken, those heaps are kept.
    int huge = pageproxy_decide_huge_pages();
    if (huge == 1 || huge == 3) return 0;
    if (pageproxy_arena_top_pad_set != 0 && mallopt(M_ARENA_MAX, 1) == 1) pageproxy_single_arena = 1;
    return pageproxy_single_arena;
}

size_t pageproxy_malloc_warm_limit(void) {
    // What a free keeps at the top of the heap is the pad (less glibc's margin); past it, a warmed page is given back.
    return pageproxy_single_arena && pageproxy_arena_top_pad_set > (1 << 20) ? (size_t)pageproxy_arena_top_pad_set - (1 << 20) : 0;
}

size_t pageproxy_warm_malloc_heap(size_t bytes) {
    size_t limit = pageproxy_malloc_warm_limit();
    if (bytes > limit) bytes = limit;
    long page = sysconf(_SC_PAGESIZE);
    if (page <= 0 || bytes < (size_t)page) return 0;
    unsigned char *block = malloc(bytes);
    if (block == NULL) return 0;
    uintptr_t start = ((uintptr_t)block + (uintptr_t)page - 1) & ~((uintptr_t)page - 1);
    uintptr_t end = ((uintptr_t)block + bytes) & ~((uintptr_t)page - 1);
    // One call for every page (Linux 5.14); a write a page otherwise.
    if (end <= start || madvise((void *)start, end - start, MADV_POPULATE_WRITE) != 0) {
        for (size_t offset = 0; offset < bytes; offset += (size_t)page) ((volatile unsigned char *)block)[offset] = 0;
    }
    free(block);
    return bytes;
}

// Issue 13, tenth pass: the first read-back after a restart reads 10 MB of entries into memory the process never
// touched, and each 4 KiB page of it faulted in on its own (~3,000 faults, 20-40 % of that request's CPU on this VM;
// with glibc's `glibc.malloc.hugetlb=1` tunable the same request made ~150 and took half the CPU). The tunable is read
// from the environment at start only, so the heap an entry's bytes are read into is advised here instead, once per
// heap: a thread arena's heap, which glibc reserves `pageproxy_heap_span` bytes large and aligned to that size, is
// advised whole (its part not yet writable too, so that what it grows into is advised). Anything else (the main
// arena's brk heap, a block mapped on its own) is left alone: only a range whose every mapping is anonymous, private
// and read-write or inaccessible, starting read-write at the aligned base, is advised. Memory becomes huge pages only
// where a whole aligned 2 MiB of the heap is untouched when first written; the cost is that a heap keeps its memory in
// 2 MiB pieces (freed memory at its top is still given back, which splits them).
static const uintptr_t pageproxy_heap_span = (uintptr_t)64 << 20;
static const uintptr_t pageproxy_huge_page = (uintptr_t)2 << 20;
#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25
#endif
// Heaps looked at so far: the base, with bit 0 set when it was advised (bases are aligned to the span). Bounded: once
// full, further heaps are left as they are.
#define PAGEPROXY_HEAPS_SEEN 64
static _Atomic uintptr_t pageproxy_heaps_seen[PAGEPROXY_HEAPS_SEEN];

// Whether every mapping in [base, base + span) is anonymous, private, read-write or inaccessible, with no gap, and
// the one at base read-write (a glibc heap: its header lies there).
static int pageproxy_is_heap_reservation(uintptr_t base, uintptr_t span) {
    FILE *maps = fopen("/proc/self/maps", "re");
    if (maps == NULL) return 0;
    char line[4096];
    uintptr_t covered = base;
    int fits = 1;
    while (fits && covered < base + span && fgets(line, sizeof line, maps) != NULL) {
        unsigned long start, end, offset, inode;
        unsigned int major, minor;
        char permissions[5];
        int name = 0;
        if (sscanf(line, "%lx-%lx %4s %lx %x:%x %lu %n", &start, &end, permissions, &offset, &major, &minor, &inode, &name) < 7) continue;
        if (end <= base || start >= base + span) continue;
        int anonymous = inode == 0 && name > 0 && (line[name] == '\0' || line[name] == '\n');
        int writable = strcmp(permissions, "rw-p") == 0;
        if (!anonymous || !(writable || strcmp(permissions, "---p") == 0) || start > covered || (covered == base && !writable)) fits = 0;
        if (end > covered) covered = end;
    }
    fclose(maps);
    return fits && covered >= base + span;
}

// Whether the advice is wanted at all: 0 not decided yet, 1 yes, 2 no, 3 yes and forced (collapse too).
static _Atomic int pageproxy_huge_pages_wanted = 0;
// PAGEPROXY_HUGE_PAGES: 0 auto, 1 on, 2 off.
static _Atomic int pageproxy_huge_pages_policy = 0;

int pageproxy_huge_pages_mode_allows(const char *enabled, const char *defrag) {
    // THP `madvise` only: with `never` the operator said no (MADV_COLLAPSE would ignore it), with `always` heaps get
    // huge pages anyway. And only where a fault in an advised range never compacts memory in line: under `defrag`
    // `always`, `madvise` or `defer+madvise` it may reclaim and compact synchronously, a stall of milliseconds on a
    // cooperative-pool thread once memory is fragmented (review11; Go 1.21.1 dropped its MADV_HUGEPAGE and
    // MADV_COLLAPSE for such stalls). `defer` wakes kcompactd instead; `never` takes a huge page only if one is free.
    if (enabled == NULL || defrag == NULL || strstr(enabled, "[madvise]") == NULL) return 0;
    return strstr(defrag, "[defer]") != NULL || strstr(defrag, "[never]") != NULL;
}

static void pageproxy_read_line(const char *path, char *line, size_t size) {
    line[0] = '\0';
    FILE *file = fopen(path, "re");
    if (file == NULL) return;
    if (fgets(line, (int)size, file) == NULL) line[0] = '\0';
    fclose(file);
}

// Decided once (again after `pageproxy_set_huge_pages`): THP is `madvise` and, unless forced on, `defrag` is safe
// (above); THP is not disabled for this process (PR_SET_THP_DISABLE), and `malloc` is glibc's own (another allocator
// preloaded would manage its mappings its own way: advising them could bring back memory it gave back).
static int pageproxy_decide_huge_pages(void) {
    int policy = atomic_load_explicit(&pageproxy_huge_pages_policy, memory_order_relaxed);
    if (policy == 2) return 2;
    char enabled[128], defrag[128];
    pageproxy_read_line("/sys/kernel/mm/transparent_hugepage/enabled", enabled, sizeof enabled);
    pageproxy_read_line("/sys/kernel/mm/transparent_hugepage/defrag", defrag, sizeof defrag);
    if (strstr(enabled, "[madvise]") == NULL) return 2;
    if (policy != 1 && !pageproxy_huge_pages_mode_allows(enabled, defrag)) return 2;
    if (prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0) != 0) return 2;
    void *libc = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
    void *own = libc != NULL ? dlsym(libc, "malloc") : NULL;
    if (libc != NULL) dlclose(libc);
    if (own == NULL || own != dlsym(RTLD_DEFAULT, "malloc")) return 2;
    return policy == 1 ? 3 : 1;
}

void pageproxy_set_huge_pages(int policy) {
    atomic_store_explicit(&pageproxy_huge_pages_policy, policy == 1 || policy == 2 ? policy : 0, memory_order_relaxed);
    atomic_store_explicit(&pageproxy_huge_pages_wanted, 0, memory_order_relaxed);
}

int pageproxy_advise_huge_heap(const void *address, size_t count) {
    // Past the mmap threshold a block is a mapping of its own, not in a heap (see pageproxy_pad_malloc_arenas).
    size_t threshold = pageproxy_arena_top_pad_set != 0 ? (size_t)pageproxy_mmap_threshold : (size_t)128 << 10;
    if (address == NULL || count == 0 || count >= threshold) return 0;
    int wanted = atomic_load_explicit(&pageproxy_huge_pages_wanted, memory_order_relaxed);
    if (wanted == 0) {
        wanted = pageproxy_decide_huge_pages();
        atomic_store_explicit(&pageproxy_huge_pages_wanted, wanted, memory_order_relaxed);
    }
    if (wanted != 1 && wanted != 3) return 0;
    uintptr_t base = (uintptr_t)address & ~(pageproxy_heap_span - 1);
    // A heap at 0 could not be told from an empty slot (only below a non-PIE binary's brk heap; review11).
    if (base == 0) return 0;
    for (int slot = 0; slot < PAGEPROXY_HEAPS_SEEN; slot++) {
        uintptr_t seen = atomic_load_explicit(&pageproxy_heaps_seen[slot], memory_order_acquire);
        if (seen == 0) {
            uintptr_t expected = 0;
            // Claimed as not advised; another thread that sees it meanwhile skips it (no second look at the maps).
            if (!atomic_compare_exchange_strong(&pageproxy_heaps_seen[slot], &expected, base)) {
                if ((expected & ~(uintptr_t)1) == base) return (int)(expected & 1);
                continue;
            }
            int advised = pageproxy_is_heap_reservation(base, pageproxy_heap_span)
                && madvise((void *)base, pageproxy_heap_span, MADV_HUGEPAGE) == 0;
            if (advised) {
                atomic_store_explicit(&pageproxy_heaps_seen[slot], base | 1, memory_order_release);
                // The 2 MiB the block starts in, partly written in small pages before the heap was seen here (its
                // header, the thread's first blocks), and the next: made huge pages now, in one call, not faulted in
                // a page at a time as the rest of them is used (~500 faults a heap). Not the heap below them: it is
                // written already (nothing left to fault), and collapsing it would copy it on the reader's thread.
                // Best effort: refused on older kernels. MADV_COLLAPSE always compacts in line, whatever `defrag`
                // says: only when the operator forced huge pages on.
                uintptr_t start = (uintptr_t)address & ~(pageproxy_huge_page - 1);
                uintptr_t end = ((uintptr_t)address + count + pageproxy_huge_page - 1) & ~(pageproxy_huge_page - 1);
                if (end > start + 2 * pageproxy_huge_page) end = start + 2 * pageproxy_huge_page;
                if (end > base + pageproxy_heap_span) end = base + pageproxy_heap_span;
                if (wanted == 3) (void)madvise((void *)start, end - start, MADV_COLLAPSE);
            }
            return advised;
        }
        if ((seen & ~(uintptr_t)1) == base) return (int)(seen & 1);
    }
    return 0;
}

// Only async-signal-safe calls in the child until execve (the parent has other threads). A pipe closed by the exec
// tells the parent whether it happened: it reads the child's errno instead when it did not.
pid_t pageproxy_spawn_ending_with_parent(const char *path, char *const argv[], char *const envp[], const int streams[3], int signal) {
    int report[2];
    if (pipe2(report, O_CLOEXEC) != 0) return -1;
    pid_t parent = getpid();
    pid_t child = fork();
    if (child == 0) {
        int failure = 0;
        // The forking thread blocks most signals (Dispatch's and Foundation's threads do), and a mask outlives exec:
        // the child starts with none blocked, as from a shell, or the death signal would wait forever.
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        // A parent that died before the prctl sends nothing: the child then sees another parent and stops.
        if (prctl(PR_SET_PDEATHSIG, (unsigned long)signal, 0, 0, 0) != 0 || getppid() != parent) failure = ECHILD;
        for (int target = 0; failure == 0 && target < 3; target++) {
            int fd = streams[target] >= 0 ? streams[target] : open("/dev/null", target == 0 ? O_RDONLY : O_WRONLY);
            if (fd < 0 || (fd == target ? fcntl(fd, F_SETFD, 0) : dup2(fd, target)) < 0) failure = errno;
        }
        if (failure == 0) {
            if (report[1] > 3) syscall(SYS_close_range, 3, report[1] - 1, 0);
            syscall(SYS_close_range, report[1] + 1, ~0U, 0);
            execve(path, argv, envp);
            failure = errno;
        }
        (void)!write(report[1], &failure, sizeof failure);
        _exit(127);
    }
    int saved = errno;
    close(report[1]);
    if (child < 0) {
        close(report[0]);
        errno = saved;
        return -1;
    }
    int failure = 0;
    ssize_t got;
    do { got = read(report[0], &failure, sizeof failure); } while (got < 0 && errno == EINTR);
    close(report[0]);
    if (got == (ssize_t)sizeof failure) {
        int status;
        waitpid(child, &status, 0);
        errno = failure;
        return -1;
    }
    return child;
}

// The write end of the pipe signals are told through (`pageproxy_signals_to_pipe`); -1 before it is made.
static int pageproxy_signal_write_end = -1;

// Runs on whichever thread the kernel chose: only async-signal-safe calls. A full pipe (64 KiB of signals no one
// read) drops the byte: the reader has a backlog of the same signals already.
static void pageproxy_signal_to_pipe(int signo) {
    int saved = errno;
    unsigned char byte = (unsigned char)signo;
    ssize_t written = write(pageproxy_signal_write_end, &byte, 1);
    (void)written;
    errno = saved;
}

int pageproxy_signals_to_pipe(const int *signals, int count) {
    int ends[2];
    if (pipe2(ends, O_CLOEXEC) != 0) return -1;
    int flags = fcntl(ends[1], F_GETFL);
    if (flags < 0 || fcntl(ends[1], F_SETFL, flags | O_NONBLOCK) != 0) {
        close(ends[0]);
        close(ends[1]);
        return -1;
    }
    pageproxy_signal_write_end = ends[1];
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = pageproxy_signal_to_pipe;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    for (int index = 0; index < count; index++) {
        if (sigaction(signals[index], &action, NULL) != 0) return -1;
    }
    return ends[0];
}
