/* Heap experiments without a rebuild (docs/benchmarks.md, "System time: what the heap's trims cost"):
 *   gcc -O2 -shared -fPIC -o /tmp/heap-shim.so scripts/bench/heap-shim.c -ldl
 *   LD_PRELOAD=/tmp/heap-shim.so KP_NOTRIM=1 KP_MMAP=67108864 kartpack convert ...
 * KP_NOTRIM: malloc_trim does nothing. KP_TRIMIF=BYTES: malloc_trim only when at least BYTES are free in the
 * heap (mallinfo2). KP_MMAP / KP_TRIMTH: replace the values Kartpack gives mallopt for M_MMAP_THRESHOLD and
 * M_TRIM_THRESHOLD (ProcessHeap.configure). KP_SHIM_CALLS=PATH: appends a line to PATH per mallopt call it
 * changed and per malloc_trim it skipped (how a test sees that the shim took effect). glibc only. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>

static void note(const char *what) {
    const char *path = getenv("KP_SHIM_CALLS");
    if (!path) return;
    FILE *f = fopen(path, "a");
    if (f) {
        fprintf(f, "%s\n", what);
        fclose(f);
    }
}

int malloc_trim(size_t pad) {
    if (getenv("KP_NOTRIM")) {
        note("trim skipped");
        return 0;
    }
    const char *c = getenv("KP_TRIMIF");
    if (c) {
        struct mallinfo2 m = mallinfo2();
        if (m.fordblks < (size_t)atoll(c)) {
            note("trim skipped");
            return 0;
        }
    }
    int (*real)(size_t) = (int (*)(size_t))dlsym(RTLD_NEXT, "malloc_trim");
    return real(pad);
}

int mallopt(int param, int value) {
    int (*real)(int, int) = (int (*)(int, int))dlsym(RTLD_NEXT, "mallopt");
    const char *m = getenv("KP_MMAP");
    if (m && param == M_MMAP_THRESHOLD) {
        value = atoi(m);
        note("mmap threshold set");
    }
    const char *t = getenv("KP_TRIMTH");
    if (t && param == M_TRIM_THRESHOLD) {
        value = atoi(t);
        note("trim threshold set");
    }
    return real(param, value);
}
