// One entry of a digest handed to the host's lu_digest_entry_fn (see
// liveupdate/ext/digest.h), whoever walked the tree: lu-agent for the docker
// updater, common/tree_digest for the local one.
#pragma once

#include <cstdint>
#include <string_view>

#include "liveupdate/ext/digest.h"

namespace liveupdate::updaters {

struct DigestEntryView {
    std::string_view path;
    std::int32_t kind = LU_DIGEST_OTHER;  // lu_digest_kind
    std::uint32_t mode = 0;
    std::uint64_t size = 0;
    std::uint64_t hash = 0;
};

// What `each` said: true to go on.
bool hand_digest_entry(lu_digest_entry_fn each, void *each_ctx, const DigestEntryView &entry);

}  // namespace liveupdate::updaters
