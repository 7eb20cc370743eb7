// mallopt(3) and the one parameter bleexplr sets, and malloc_trim(3), as glibc's <malloc.h>
// declares them.
// Not that header itself: it brings stdio.h along, whose globals (stderr) Swift would
// then find here, outside the Glibc module and its concurrency annotations.
#ifndef BLEEXPLR_CMALLOC_SHIM_H
#define BLEEXPLR_CMALLOC_SHIM_H
extern int mallopt(int param, int value);
extern int malloc_trim(unsigned long pad);
#define M_MMAP_THRESHOLD (-3)
#endif
