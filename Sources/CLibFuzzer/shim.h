#ifndef CLIBFUZZER_SHIM_H
#define CLIBFUZZER_SHIM_H
// libFuzzer's C entry points (compiler-rt, linked by `-sanitize=fuzzer`). Only declarations: nothing is linked
// unless the fuzz targets are built with -sanitize=fuzzer and -DKARTPACK_FUZZING (see scripts/fuzz-long.sh).
#include <stddef.h>
#include <stdint.h>

/// Runs libFuzzer's driver (command-line flags in argv) with `callback` as the test function.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

/// The test function every fuzz target defines with `@_cdecl("LLVMFuzzerTestOneInput")`.
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
#endif
