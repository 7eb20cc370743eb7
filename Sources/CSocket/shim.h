// recvmmsg(2), which glibc declares only under _GNU_SOURCE (Swift's Glibc module is built
// without it, and including <sys/socket.h> here again would hide its names from the
// Glibc module). `vec` is an array of struct mmsghdr: a struct msghdr, then the unsigned
// int length the kernel fills in (Sources/BlueZ/BlueZAcquiredNotify.swift lays it out).
#ifndef BLEEXPLR_CSOCKET_SHIM_H
#define BLEEXPLR_CSOCKET_SHIM_H
extern int bleexplr_recvmmsg(int fd, void *vec, unsigned int vlen, int flags, void *timeout) __asm__("recvmmsg");
#endif
