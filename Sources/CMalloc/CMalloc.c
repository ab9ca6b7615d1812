#include "CMalloc.h"
#include <stdlib.h>   /* defines __GLIBC__ on glibc */

#if defined(__GLIBC__)
#include <malloc.h>

int receiptq_malloc_arena_max(int count) {
    return mallopt(M_ARENA_MAX, count);
}
#else
int receiptq_malloc_arena_max(int count) {
    (void)count;
    return 0;
}
#endif
