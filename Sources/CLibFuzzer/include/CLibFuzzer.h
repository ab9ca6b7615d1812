#ifndef C_LIB_FUZZER_H
#define C_LIB_FUZZER_H

#include <stddef.h>
#include <stdint.h>

// libFuzzer's driver, for `receipt-fuzz`. Why a shim: SwiftPM links every executable with
// `main` aliased to the Swift entry point, so libFuzzer's own `main` is never linked in; the
// Swift entry point must start the fuzzing loop itself, and Swift cannot declare a C function
// without a header. Resolved only in a `-sanitize=fuzzer` build, which alone calls it.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*user_callback)(const uint8_t *data, size_t size));

#endif
