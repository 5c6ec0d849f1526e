// The local updater's LU_DIGEST_EXTENSION_ID: a local container's folder is
// digested in place (common/tree_digest), as lu-agent digests a real one.
#pragma once

#include "liveupdate/ext/digest.h"

namespace liveupdate::local {

// The extension table; its digest reads container->root.
const lu_digest_extension &digest_extension();

}  // namespace liveupdate::local
