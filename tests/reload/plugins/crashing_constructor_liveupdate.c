/* A liveupdate plugin whose load crashes (a constructor that faults, as a
   static initializer gone wrong does): a hot reload to it must be refused and
   the daemon must live on. */
#include <signal.h>

#include "liveupdate/liveupdate_plugin.h"

__attribute__((constructor)) static void crash_when_loaded(void) { raise(SIGSEGV); }

static const lu_plugin_info info = {sizeof(lu_plugin_info), 1u, 1u, "liveupdate", "liveupdate-crashing", "0.0.1"};

LU_EXPORT const lu_liveupdate_api *lu_liveupdate_plugin_entry(uint32_t abi_version, const lu_plugin_info **out_info) {
    (void)abi_version; /* never reached: loading the file already crashed */
    *out_info = &info;
    return NULL;
}
