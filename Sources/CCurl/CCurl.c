// Every wrapper is `static inline` in include/CCurl.h; this file gives SwiftPM a C source to compile.
#include "CCurl.h"
