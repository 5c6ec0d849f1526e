#include "updaters/local/container_digest.hpp"

#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <unordered_set>

#include "common/tree_digest/tree_digest.hpp"
#include "liveupdate/liveupdate.hpp"
#include "updaters/local/container_paths.hpp"
#include "updaters/shared/digest_entry.hpp"

namespace liveupdate::local {
namespace {

int32_t fail(int32_t rc, lu_message *out_error, const std::string &why) noexcept {
    if (out_error != nullptr) *out_error = abi::make_message("local updater: " + why);
    return rc;
}

// Walking a folder logs nothing: log and log_ctx go unused. scope NULL:
// every file's content, within the default budget.
int32_t digest_scoped(lu_updater *updater, const lu_container_ref *container, lu_str container_path,
                      const lu_digest_scope *scope, lu_digest_entry_fn each, void *each_ctx, lu_log_fn, void *,
                      lu_message *out_error) noexcept {
    if (updater == nullptr || container == nullptr || each == nullptr)
        return fail(LU_ERR_INVALID_ARGUMENT, out_error, "digest needs an updater, a container and a callback");
    if (scope != nullptr && (scope->struct_size < LU_DIGEST_SCOPE_SIZE_1_11 ||
                             (scope->hash_paths == nullptr && scope->hash_path_count != 0)))
        return fail(LU_ERR_INVALID_ARGUMENT, out_error,
                    "digest: the scope is too small or names paths without an array");
    try {
        std::unordered_set<std::string> wanted;
        tree_digest::WalkOptions options;
        if (scope != nullptr) {
            for (std::uint64_t i = 0; i < scope->hash_path_count; ++i)
                wanted.emplace(abi::to_view(scope->hash_paths[i]));
            options.hash_content = [&wanted](const std::string &relative) { return wanted.count(relative) != 0; };
            options.max_bytes = scope->max_bytes;
            options.max_time = std::chrono::milliseconds(scope->max_millis);
            if (scope->struct_size >= sizeof(lu_digest_scope) && scope->keep_going != nullptr)
                options.keep_going = [scope] { return scope->keep_going(scope->keep_going_ctx) != 0; };
        }
        const std::string path(abi::to_view(container_path));
        const RelativePath relative = container_path_relative(path);
        if (!relative.refusal.empty())
            return fail(LU_ERR_INVALID_ARGUMENT, out_error, "cannot digest " + path + ": " + relative.refusal);
        const char *given_root = container->root;
        if (given_root == nullptr || *given_root == '\0')
            return fail(LU_ERR_UNSUPPORTED, out_error, "the container has no root folder (not a local container?)");
        char root[PATH_MAX];
        if (::realpath(given_root, root) == nullptr)
            return fail(LU_ERR_INTERNAL, out_error,
                        std::string("container root ") + given_root + " is not usable: " + std::strerror(errno));
        const std::string at = under_root(root, relative.path);
        const tree_digest::WalkResult walked =
            tree_digest::walk_tree(at, options, [each, each_ctx](tree_digest::Entry &&e) {
                return updaters::hand_digest_entry(each, each_ctx,
                                                   {e.path, static_cast<int32_t>(e.kind), e.mode, e.size, e.hash});
            });
        if (!walked.found) return fail(LU_ERR_NOT_FOUND, out_error, "nothing at " + path + " (" + at + ")");
        if (walked.stopped) return LU_ERR_STATE;
        if (!walked.error.empty()) return fail(LU_ERR_INTERNAL, out_error, walked.error);
        return LU_OK;
    } catch (const std::exception &e) {
        return fail(LU_ERR_INTERNAL, out_error, std::string("digest: ") + e.what());
    }
}

int32_t digest(lu_updater *updater, const lu_container_ref *container, lu_str container_path, lu_digest_entry_fn each,
               void *each_ctx, lu_log_fn log, void *log_ctx, lu_message *out_error) noexcept {
    return digest_scoped(updater, container, container_path, nullptr, each, each_ctx, log, log_ctx, out_error);
}

uint64_t reconnect_count(lu_updater *) noexcept { return 0; }  // nothing to connect to

constexpr lu_digest_extension kDigest{sizeof(lu_digest_extension), digest, reconnect_count, digest_scoped, nullptr};

}  // namespace

const lu_digest_extension &digest_extension() { return kDigest; }

}  // namespace liveupdate::local
