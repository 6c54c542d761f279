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
/* Heap growth ahead (kartpack_malloc_grow_arenas): each thread takes an arena of its own (all are alive until
   every one has allocated), grows its heap by `bytes` in blocks under the mmap threshold and frees them. The heap
   then shrinks back (madvise, past the trim threshold) but keeps the pages writable: glibc grows a thread's heap
   with one mprotect per growth, a page at a time for small blocks, and only past the highest size it ever had. */
#include <pthread.h>
struct kartpack_grow {
    pthread_mutex_t lock;
    pthread_cond_t changed;
    int allocated;  /* threads that hold their blocks */
    int release;    /* set once every thread started holds them */
    size_t bytes, block;
};
static void *kartpack_grow_one(void *arg) {
    struct kartpack_grow *g = (struct kartpack_grow *)arg;
    void *held[64];
    size_t n = 0;
    while (n < 64 && (n + 1) * g->block <= g->bytes && (held[n] = malloc(g->block)) != NULL) n++;
    pthread_mutex_lock(&g->lock);
    g->allocated++;
    pthread_cond_broadcast(&g->changed);
    while (!g->release) pthread_cond_wait(&g->changed, &g->lock);
    pthread_mutex_unlock(&g->lock);
    while (n > 0) free(held[--n]);
    return NULL;
}
/* Grows up to `arenas` (at most 64) thread arenas by `bytes` each, in blocks of `block` bytes (under the mmap
   threshold); returns how many threads did it. */
static inline int kartpack_malloc_grow_arenas(int arenas, long bytes, long block) {
    if (arenas <= 0 || bytes <= 0 || block <= 0) return 0;
    if (arenas > 64) arenas = 64;
    struct kartpack_grow g = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, (size_t)bytes, (size_t)block};
    pthread_t threads[64];
    pthread_attr_t attr;
    if (pthread_attr_init(&attr) != 0) return 0;
    pthread_attr_setstacksize(&attr, 64 << 10);
    int started = 0;
    while (started < arenas && pthread_create(&threads[started], &attr, kartpack_grow_one, &g) == 0) started++;
    pthread_attr_destroy(&attr);
    /* None exits (handing its arena to the next) before all hold their blocks. */
    pthread_mutex_lock(&g.lock);
    while (g.allocated < started) pthread_cond_wait(&g.changed, &g.lock);
    g.release = 1;
    pthread_cond_broadcast(&g.changed);
    pthread_mutex_unlock(&g.lock);
    for (int i = 0; i < started; i++) pthread_join(threads[i], NULL);
    return started;
}
static inline long kartpack_malloc_in_use(void) {
    struct mallinfo2 m = mallinfo2();
    return (long)(m.uordblks + m.hblkhd);
}
#else
static inline int kartpack_malloc_set(int arenas, int mmap_threshold, int trim_threshold) {
    (void)arenas; (void)mmap_threshold; (void)trim_threshold; return 0;
}
static inline int kartpack_malloc_trim(void) { return 0; }
static inline int kartpack_malloc_grow_arenas(int arenas, long bytes, long block) {
    (void)arenas; (void)bytes; (void)block; return 0;
}
static inline long kartpack_malloc_in_use(void) { return 0; }
#endif
#endif
