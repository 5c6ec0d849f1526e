#include "plugin/core/initial_sync.hpp"

#include <algorithm>
#include <filesystem>
#include <stdexcept>
#include <system_error>

#include "common/builtin_ignores.hpp"
#include "common/text_format.hpp"
#include "common/utf8.hpp"
#include "plugin/core/plan.hpp"

namespace liveupdate {

namespace fs = std::filesystem;

std::vector<common::IgnoreDef> initial_sync_filter(const std::vector<common::IgnoreDef> &source_ignores) {
    std::vector<common::IgnoreDef> out;
    for (const auto &def : source_ignores) {
        if (def.patterns.empty()) {
            out.push_back({def.base_path, {"**"}});
            continue;
        }
        try {
            common::IgnorePatterns check(def.base_path, def.patterns);
            out.push_back(def);
        } catch (const std::invalid_argument &) {
            // Tilt skips an ill-formed ignore rather than failing the sync.
        }
    }
    out.push_back({"/", common::builtin_ignore_patterns()});
    return out;
}

InitialSyncFiles collect_initial_sync_files(const api::LiveUpdateSpec &spec, const common::IgnoreSet &filter) {
    InitialSyncFiles out;
    for (const auto &rule : sync_rules(spec)) {
        std::error_code ec;
        const auto root_status = fs::symlink_status(rule.local_path, ec);
        if (ec || !fs::exists(root_status)) {
            if (ec && ec != std::errc::no_such_file_or_directory && ec != std::errc::not_a_directory)
                throw std::runtime_error("stat " + rule.local_path + ": " + ec.message());
            out.warnings.push_back("initial_sync: sync path " + common::go_quote(rule.local_path) +
                                   " does not exist, skipping");
            continue;
        }
        if (!fs::is_directory(root_status)) {
            if (!filter.matches(rule.local_path)) out.files.push_back(rule.local_path);
            continue;
        }
        // An explicit stack: deep trees must not exhaust the call stack.
        std::vector<std::string> dirs{rule.local_path};
        while (!dirs.empty()) {
            const std::string dir = std::move(dirs.back());
            dirs.pop_back();
            fs::directory_iterator it(dir, ec);
            if (ec) throw std::runtime_error("walking sync path " + rule.local_path + ": " + dir + ": " + ec.message());
            for (const auto &entry : it) {
                const std::string path = entry.path().string();
                if (!common::is_valid_utf8(path)) {
                    out.warnings.push_back("initial_sync: skipping " + common::printable_path(path) +
                                           ": its name is not valid UTF-8; rename it to sync it");
                    continue;
                }
                const bool is_dir = entry.is_directory(ec) && !entry.is_symlink(ec);
                if (is_dir) {
                    if (!filter.matches_entire_dir(path)) dirs.push_back(path);
                } else if (!filter.matches(path)) {
                    out.files.push_back(path);
                }
            }
        }
    }
    std::sort(out.files.begin(), out.files.end());
    out.files.erase(std::unique(out.files.begin(), out.files.end()), out.files.end());
    return out;
}

}  // namespace liveupdate
