#include "updaters/shared/change_watch_entry.hpp"

#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

#include "common/agent_client/change_watch.hpp"
#include "common/agent_protocol/messages.hpp"

struct lu_change_watch {
    std::unique_ptr<liveupdate::agent_client::ChangeWatch> watch;
};

namespace liveupdate::updaters {
namespace {

namespace ac = agent_client;
namespace ap = agent_protocol;

constexpr std::chrono::seconds kWatchTimeout{30};
// How long the agent waits for a file to stop changing before it sends it:
// short, since a file that changes again is simply sent again.
constexpr std::uint32_t kDebounceMs = 5;

static_assert(static_cast<int>(ap::ChangeKind::written) == LU_CHANGE_WRITTEN &&
              static_cast<int>(ap::ChangeKind::deleted) == LU_CHANGE_DELETED &&
              static_cast<int>(ap::ChangeKind::symlink) == LU_CHANGE_SYMLINK &&
              static_cast<int>(ap::ChangeKind::other) == LU_CHANGE_OTHER &&
              static_cast<int>(ap::ChangeKind::rescan) == LU_CHANGE_RESCAN);

int32_t root_code(ac::WatchedRoot root) {
    switch (root) {
    case ac::WatchedRoot::missing: return LU_ROOT_MISSING;
    case ac::WatchedRoot::empty: return LU_ROOT_EMPTY;
    case ac::WatchedRoot::holds: return LU_ROOT_HOLDS;
    case ac::WatchedRoot::unknown: break;
    }
    return LU_ROOT_UNKNOWN;
}

lu_str str(const std::string &s) { return abi::to_lu_str(s); }

}  // namespace

int32_t start_change_watch(const char *updater_name, const OpenWatchSession &open, const lu_container_ref *container,
                           lu_str root, const lu_str *patterns, uint64_t pattern_count, uint64_t max_file_bytes,
                           const AgreedFiles *agreed, lu_container_changes_fn each, void *each_ctx, lu_log_fn log,
                           void *log_ctx, lu_change_watch **out_watch, lu_message *out_error) noexcept {
    const auto fail = [&](int32_t rc, const std::string &why) {
        if (out_error != nullptr) *out_error = abi::make_message(std::string(updater_name) + " updater: " + why);
        return rc;
    };
    if (container == nullptr || each == nullptr || out_watch == nullptr ||
        (patterns == nullptr && pattern_count != 0) ||
        (agreed != nullptr && agreed->files == nullptr && agreed->count != 0))
        return fail(LU_ERR_INVALID_ARGUMENT, "watch needs a container, a callback and a place for the watch");
    try {
        ap::WatchChanges request;
        request.watch_id = 1;
        request.root = std::string(abi::to_view(root));
        if (const auto problem = ap::path_problem(request.root); !problem.empty())
            return fail(LU_ERR_INVALID_ARGUMENT, "cannot watch " + request.root + ": " + problem);
        for (uint64_t i = 0; i < pattern_count; ++i) request.patterns.emplace_back(abi::to_view(patterns[i]));
        request.max_file_bytes = max_file_bytes;
        request.debounce_ms = kDebounceMs;
        if (agreed != nullptr) {
            request.report_existing = 1;
            for (uint64_t i = 0; i < agreed->count; ++i) {
                const lu_agreed_file &file = agreed->files[i];
                if (file.struct_size < offsetof(lu_agreed_file, hash) + sizeof file.hash)
                    return fail(LU_ERR_INVALID_ARGUMENT, "agreed file " + std::to_string(i) + " is too small");
                request.agreed_paths.emplace_back(abi::to_view(file.path));
                request.agreed_hashes.push_back(file.hash);
            }
        }
        const updater::UpdateLog watch_log(log, log_ctx);
        std::unique_ptr<ac::AgentSession> session = open(updater::to_container_ref(*container), watch_log);
        auto batch = [each, each_ctx](const std::vector<ap::ContainerChange> &changes, ac::WatchedRoot where) {
            std::vector<lu_container_change> out;
            out.reserve(changes.size());
            for (const ap::ContainerChange &c : changes)
                out.push_back({sizeof(lu_container_change), str(c.path), c.kind, c.mode, c.size, c.hash, c.has_content,
                               str(c.content), str(c.note)});
            const lu_container_changes all{
                sizeof(lu_container_changes), out.data(), out.size(), root_code(where), 0, {nullptr, 0}};
            each(each_ctx, &all);
        };
        auto end = [each, each_ctx](const std::string &why) {
            const lu_container_changes ended{sizeof(lu_container_changes), nullptr, 0, LU_ROOT_UNKNOWN, 1, str(why)};
            each(each_ctx, &ended);
        };
        auto line = [watch_log](std::string_view text) { watch_log(LU_LOG_INFO, text); };
        auto watch = std::make_unique<lu_change_watch>();
        watch->watch = std::make_unique<ac::ChangeWatch>(std::move(session), request, kWatchTimeout, std::move(batch),
                                                         std::move(end), line);
        *out_watch = watch.release();
        return LU_OK;
    } catch (const WatchUnsupported &e) {
        return fail(LU_ERR_UNSUPPORTED, e.what());
    } catch (const ac::AgentSessionBroken &e) {
        return fail(LU_ERR_INTERNAL, e.what());
    } catch (const std::runtime_error &e) {
        // The agent refused to watch: too old (one-way), or the root.
        return fail(LU_ERR_UNSUPPORTED, e.what());
    } catch (const std::exception &e) {
        return fail(LU_ERR_INTERNAL, e.what());
    }
}

void stop_change_watch(lu_change_watch *watch) noexcept { delete watch; }

}  // namespace liveupdate::updaters
