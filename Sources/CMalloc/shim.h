// mallopt(3) and the one parameter bleexplr sets, as glibc's <malloc.h> declares them.
// Not that header itself: it brings stdio.h along, whose globals (stderr) Swift would
// then find here, outside the Glibc module and its concurrency annotations.
#ifndef BLEEXPLR_CMALLOC_SHIM_H
#define BLEEXPLR_CMALLOC_SHIM_H
extern int mallopt(int param, int value);
#define M_MMAP_THRESHOLD (-3)
#endif
