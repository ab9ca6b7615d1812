#ifndef C_MALLOC_H
#define C_MALLOC_H

// glibc's mallopt(M_ARENA_MAX, count), for CommandSupport's MallocArenas. Why a shim: mallopt and
// its M_* parameters are declared in <malloc.h>, which Swift's Glibc module does not import.
// Returns 1 when glibc took the setting, 0 when it refused it or is not glibc.
int receiptq_malloc_arena_max(int count);

#endif
