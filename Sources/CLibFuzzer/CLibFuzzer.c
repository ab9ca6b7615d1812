// Intentionally empty: the target exists for its header (see include/CLibFuzzer.h).
#include "CLibFuzzer.h"
