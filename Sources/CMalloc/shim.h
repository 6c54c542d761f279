#ifndef CMALLOC_SHIM_H
#define CMALLOC_SHIM_H
/* glibc's malloc tuning (malloc.h): how many arenas threads spread over, a fixed threshold for allocations
   served by mmap (returned to the system when freed), and giving free pages back. Elsewhere (macOS, musl)
   every call is a no-op returning 0. */
#if defined(__linux__) && __has_include(<malloc.h>)
#include <malloc.h>
#endif
#if defined(M_ARENA_MAX) && defined(M_MMAP_THRESHOLD) && defined(__GLIBC__)
/* Each setting on its own, so one refused does not skip the others; 1 when all three were taken. */
static inline int kartpack_malloc_set(int arenas, int mmap_threshold, int trim_threshold) {
    int a = mallopt(M_ARENA_MAX, arenas);
    int m = mallopt(M_MMAP_THRESHOLD, mmap_threshold);
    int t = mallopt(M_TRIM_THRESHOLD, trim_threshold);
    return a && m && t;
}
static inline int kartpack_malloc_trim(void) { return malloc_trim(0); }
static inline long kartpack_malloc_in_use(void) {
    struct mallinfo2 m = mallinfo2();
    return (long)(m.uordblks + m.hblkhd);
}
#else
static inline int kartpack_malloc_set(int arenas, int mmap_threshold, int trim_threshold) {
    (void)arenas; (void)mmap_threshold; (void)trim_threshold; return 0;
}
static inline int kartpack_malloc_trim(void) { return 0; }
static inline long kartpack_malloc_in_use(void) { return 0; }
#endif
#endif
