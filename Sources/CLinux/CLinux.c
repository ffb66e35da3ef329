// preadv2 and RWF_NOWAIT need _GNU_SOURCE, which Swift's view of the C library lacks: the wrapper is compiled here.
#define _GNU_SOURCE
#include <sys/uio.h>
#include "CLinux.h"

ssize_t pageproxy_pread_nowait(int fd, void *buffer, size_t count, off_t offset) {
    struct iovec vector = { buffer, count };
    return preadv2(fd, &vector, 1, offset, RWF_NOWAIT);
}
