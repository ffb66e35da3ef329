// Linux calls that Swift's Glibc module does not export.
// - epoll and eventfd: the socket layer's event loop (PageProxyCore/Socket/EpollLoop.swift) calls them directly.
// - preadv2 with RWF_NOWAIT, wrapped: the disk cache reads an entry inline only when its bytes are in the page
//   cache, and otherwise off the cooperative pool (PageProxyCore/Cache/CacheFileSystem.swift).
// - renameat2 with RENAME_EXCHANGE, wrapped: a cache write swaps its entry into place, so the old version is never
//   missing for a reader and its size is known exactly (PageProxyCore/Cache/CacheFileSystem.swift).
// - open with O_NOATIME: reading a cache entry does not write its inode (PageProxyCore/Cache/CacheFileSystem.swift).
// - prctl(PR_SET_NAME): the event loop's thread names itself (PageProxyCore/Socket/EpollLoop.swift).
// - madvise(MADV_HUGEPAGE) of the malloc heap cache entries are read into (PageProxyCore/Cache/CacheFileSystem.swift).
// - fork, prctl(PR_SET_PDEATHSIG) and execve: the tests' `PageProxy` children end with the test process
//   (Tests/PageProxyTests/Support/ChildProcess.swift); posix_spawn runs nothing in the child before exec.
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/types.h>

/// Reads up to `count` bytes at `offset` only from the page cache: -1 with errno EAGAIN when any of them would
/// have to come from the disk (and EOPNOTSUPP or ENOSYS where the file system or kernel cannot say).
ssize_t pageproxy_pread_nowait(int fd, void *buffer, size_t count, off_t offset);

/// Reads `firstCount` bytes at `offset` into `first` and the next `secondCount` into `second`, in one call (a cache
/// entry's head and body, each into an array of its own); with `nowait`, only from the page cache, as
/// `pageproxy_pread_nowait`. The bytes read, or -1 with errno.
ssize_t pageproxy_pread_two(int fd, void *first, size_t firstCount, void *second, size_t secondCount, off_t offset, int nowait);

/// Swaps the files at `from` and `to` in one step: 0, or -1 with errno (ENOENT when either is missing; EINVAL,
/// ENOSYS or EOPNOTSUPP where the file system or kernel cannot exchange).
int pageproxy_rename_exchange(const char *from, const char *to);

/// Opens `path` to read without updating its access time: a descriptor, or -1 with errno (EPERM when the file is
/// not this user's, where the flag is refused).
int pageproxy_open_noatime(const char *path);
/// `openat(directory, path, O_RDONLY | O_CLOEXEC | O_NOATIME | O_NOFOLLOW | O_NONBLOCK)`: a cache entry under a held
/// directory descriptor (ELOOP for a symbolic link, the file's or its folder's; a FIFO opens at once, for the caller
/// to refuse).
int pageproxy_openat_noatime(int directory, const char *path);
/// As above without O_NOATIME, where it is not allowed (EPERM: not the owner).
int pageproxy_openat_readonly(int directory, const char *path);
/// `open(path, O_RDONLY | O_CLOEXEC | O_DIRECTORY)`: a descriptor of the cache directory, held by the store.
int pageproxy_open_directory(const char *path);

/// Names the calling thread (at most 15 bytes are kept) so that `top -H` and `perf` show what it is: 0, or -1.
int pageproxy_name_this_thread(const char *name);

/// Pads malloc's arenas and fixes the mmap threshold (see CLinux.c); call before any thread starts. Returns the pad
/// set (0 if glibc refused it).
int pageproxy_pad_malloc_arenas(void);

/// The `M_TOP_PAD` `pageproxy_pad_malloc_arenas` set (0 if it was not called, or glibc refused it).
int pageproxy_malloc_top_pad(void);

/// Keeps every thread to glibc's main malloc arena (`M_ARENA_MAX` 1), after `pageproxy_pad_malloc_arenas` and before
/// any thread starts and after `pageproxy_set_huge_pages`, so that the heap `pageproxy_warm_malloc_heap` warms is the
/// one entries are read into. 1 when set; 0 when huge pages are taken for the thread heaps instead, or glibc refused.
int pageproxy_keep_one_malloc_arena(void);

/// The most `pageproxy_warm_malloc_heap` warms: what a free keeps at the heap's top (the pad less 1 MiB); 0 unless
/// the pad and the one arena are set.
size_t pageproxy_malloc_warm_limit(void);

/// Faults in `bytes` (at most `pageproxy_malloc_warm_limit()`) of the malloc heap and frees them, kept by the heap for
/// the blocks allocated next (see CLinux.c): the bytes warmed, 0 when none.
size_t pageproxy_warm_malloc_heap(size_t bytes);

/// Advises huge pages (`MADV_HUGEPAGE`) for the glibc thread heap that holds the `count` bytes at `address`, the
/// first time a block of that heap is shown here (see CLinux.c): 1 when that heap is advised (now or before), 0 when
/// it is not (the main arena's heap, a block mapped on its own, too many heaps seen, madvise refused; or never at all
/// unless the kernel's THP mode is `madvise`, THP is allowed for the process and `malloc` is glibc's own).
int pageproxy_advise_huge_heap(const void *address, size_t count);

/// Whether the kernel's THP modes (the lines of /sys/kernel/mm/transparent_hugepage/enabled and defrag) let
/// `pageproxy_advise_huge_heap` advise on its own: `enabled` is `madvise` and `defrag` is `defer` or `never`
/// (no fault in an advised heap compacts memory in line). 1 yes, 0 no.
int pageproxy_huge_pages_mode_allows(const char *enabled, const char *defrag);

/// `PAGEPROXY_HUGE_PAGES`: 0 auto (the kernel's modes decide, as above), 1 on (whatever `defrag` is, and collapse
/// the first 4 MiB: may stall a thread to compact memory; still only where THP is `madvise`, allowed for the process
/// and `malloc` is glibc's), 2 off. Call before the first read.
void pageproxy_set_huge_pages(int policy);

/// Catches each of `signals` with a handler that writes its number (one byte) to a pipe, and returns the pipe's read
/// end (blocking, close-on-exec), or -1 with errno. A signal is never lost between this call and the first read,
/// whichever thread it lands on (a disposition of SIG_IGN, as libdispatch's signal sources need, discards a signal
/// that arrives before the source is registered: a SIGTERM right after start was lost). Call once.
int pageproxy_signals_to_pipe(const int *signals, int count);

/// Starts `path` with `argv` and `envp` as a child that gets `signal` when the thread that called this ends (and so
/// when its process dies, however it dies): `streams` are the descriptors for its standard input, output and error
/// (-1: /dev/null); every other descriptor is closed in the child, and it starts with no signal blocked. The child's pid, or -1 with errno (the fork's, or
/// the child's when it could not start `path`).
pid_t pageproxy_spawn_ending_with_parent(const char *path, char *const argv[], char *const envp[], const int streams[3], int signal);
