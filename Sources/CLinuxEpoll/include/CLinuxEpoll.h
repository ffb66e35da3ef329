// Linux's epoll and eventfd, which Swift's Glibc module does not export: the socket layer's event loop
// (PageProxyCore/Socket/EpollLoop.swift) calls them directly.
#include <sys/epoll.h>
#include <sys/eventfd.h>
