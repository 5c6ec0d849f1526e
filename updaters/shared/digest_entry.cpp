#include "updaters/shared/digest_entry.hpp"

namespace liveupdate::updaters {

bool hand_digest_entry(lu_digest_entry_fn each, void *each_ctx, const DigestEntryView &e) {
    const lu_digest_entry entry{
        sizeof(lu_digest_entry), {e.path.data(), e.path.size()}, e.kind, e.mode, e.size, e.hash};
    return each(each_ctx, &entry) == 0;
}

}  // namespace liveupdate::updaters
