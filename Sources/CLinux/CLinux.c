// preadv2, RWF_NOWAIT, renameat2, RENAME_EXCHANGE and O_NOATIME need _GNU_SOURCE, which Swift's view of the C library lacks:
// the wrappers are compiled here.
#define _GNU_SOURCE
#include <fcntl.h>
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

int pageproxy_name_this_thread(const char *name) {
    return prctl(PR_SET_NAME, (unsigned long)name, 0, 0, 0);
}
