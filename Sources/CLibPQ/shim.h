// libpq's client API. A system library target: Swift calls libpq directly; nothing
// here is variadic, so no C wrapper functions are needed (unlike CCurl).
#include <libpq-fe.h>
