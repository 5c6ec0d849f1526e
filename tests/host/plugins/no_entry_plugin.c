/* A valid shared object without any plugin entry symbol. */
#include "liveupdate/abi.h"

LU_EXPORT int lu_not_an_entry(void) { return 42; }
