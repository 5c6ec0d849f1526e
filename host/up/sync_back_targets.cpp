#include "host/up/sync_back_targets.hpp"

#include <stdexcept>

#include "common/json_fields.hpp"
#include "common/paths.hpp"
#include "common/sync_back/sync_back_mapping.hpp"

namespace liveupdate::host::up {
namespace json = boost::json;

namespace {

// Each sync rule's syncBack patterns, in order ("" entries are not patterns: admission refuses them).
std::vector<std::vector<std::string>> patterns_of(const json::object &live_update) {
    std::vector<std::vector<std::string>> out;
    const json::array *syncs = common::array_field(live_update, {"spec", "syncs"});
    if (syncs == nullptr) return out;
    for (const json::value &sync : *syncs) {
        std::vector<std::string> patterns;
        const json::array *back = common::array_field(sync, {"syncBack"});
        if (back != nullptr)
            for (const json::value &p : *back)
                if (p.is_string() && !p.as_string().empty()) patterns.emplace_back(p.as_string());
        out.push_back(std::move(patterns));
    }
    return out;
}

}  // namespace

std::function<bool(const std::string &)> comes_back(const json::object &live_update) {
    const std::vector<std::vector<std::string>> patterns = patterns_of(live_update);
    const json::array *syncs = common::array_field(live_update, {"spec", "syncs"});
    std::vector<liveupdate::sync_back::SyncBackMapping> mappings;
    for (std::size_t i = 0; i < patterns.size(); ++i) {
        const json::value &sync = syncs->at(i);
        const json::value *container_path = sync.is_object() ? sync.as_object().if_contains("containerPath") : nullptr;
        if (patterns[i].empty() || container_path == nullptr || !container_path->is_string()) continue;
        const std::string path = common::clean_path(std::string(container_path->as_string()));
        if (!path.starts_with('/')) continue;
        try {
            // Only the container side matters here: the local path is never used.
            mappings.emplace_back("", path, patterns[i]);
        } catch (const std::invalid_argument &) {
            continue;
        }
    }
    if (mappings.empty()) return {};
    return [mappings = std::move(mappings)](const std::string &container_file) {
        for (const auto &mapping : mappings)
            if (mapping.wanted(container_file)) return true;
        return false;
    };
}

bool asks_for_sync_back(const json::object &live_update) {
    for (const auto &patterns : patterns_of(live_update))
        if (!patterns.empty()) return true;
    return false;
}

std::vector<sync_back::SyncBackTarget> sync_back_targets(const json::object &live_update,
                                                         const verify::LiveUpdateTargets &targets) {
    const std::vector<std::vector<std::string>> patterns = patterns_of(live_update);
    std::vector<sync_back::SyncBackTarget> out;
    if (!targets.problem.empty() || targets.targets.size() != patterns.size()) return out;
    for (const verify::RunningContainer &container : targets.containers)
        for (std::size_t i = 0; i < patterns.size(); ++i) {
            if (patterns[i].empty()) continue;
            out.push_back({.live_update = targets.name,
                           .via = targets.via,
                           .container = container.ref,
                           .display = container.display,
                           .local_path = common::clean_path(targets.targets[i].local_path),
                           .container_path = common::clean_path(targets.targets[i].container_path),
                           .patterns = patterns[i]});
        }
    return out;
}

}  // namespace liveupdate::host::up
