#include "host/sync_back/conflicts_json.hpp"

#include "common/utf8.hpp"

namespace liveupdate::host::sync_back {

std::string_view conflict_reason(rules::ConflictKind kind) {
    switch (kind) {
    case rules::ConflictKind::none: return "None";
    case rules::ConflictKind::both_modified: return "BothModified";
    case rules::ConflictKind::local_modified_container_deleted: return "LocalModifiedContainerDeleted";
    case rules::ConflictKind::local_deleted_container_modified: return "LocalDeletedContainerModified";
    case rules::ConflictKind::not_a_regular_file: return "NotARegularFile";
    }
    return "Unknown";
}

boost::json::array conflicts_json(const std::vector<OpenConflict> &conflicts) {
    boost::json::array out;
    for (const OpenConflict &c : conflicts)
        out.push_back(boost::json::object{{"container", c.container},
                                          {"path", common::printable_path(c.event.container_path)},
                                          {"localPath", common::printable_path(c.event.local_file)},
                                          {"kind", conflict_reason(c.event.conflict)},
                                          {"message", c.event.message}});
    return out;
}

}  // namespace liveupdate::host::sync_back
