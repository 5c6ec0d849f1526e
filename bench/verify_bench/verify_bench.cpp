// Verify of a 10,000-file tree (1 KiB files, 100 folders) in one lu-busybox
// container, in the same run, rounds interleaved:
//  - the container's digest through the docker updater's liveupdate.digest/1
//    (lu-agent hashing with XXH3-64, entries streamed back);
//  - the whole check of `lu-host verify`: that digest, the local tree's
//    digest (the same files on this machine) and the comparison;
//  - the reference: `docker exec C sh -c 'tar -c -C DIR . | sha256sum'`.
// Prints median and p95 of each and the ratios against the reference.
// Needs `scripts/dockerd.sh start`. Usage: verify_bench [files] [rounds]
#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/bench_support/docker_workload.hpp"
#include "host/verify/tree_compare.hpp"
#include "liveupdate/ext/digest.h"
#include "tests/docker/docker_test_support.hpp"

namespace {

namespace fs = std::filesystem;
using lu_bench::Clock;
using lu_bench::ms_since;
using namespace liveupdate;

// The docker updater plugin loaded by hand, for its digest extension.
class DigestingUpdater {
public:
    DigestingUpdater() {
        library_ = ::dlopen(LU_DOCKER_UPDATER_PATH, RTLD_NOW | RTLD_LOCAL);
        if (library_ == nullptr) throw std::runtime_error(std::string("dlopen: ") + ::dlerror());
        const auto entry = reinterpret_cast<lu_updater_entry_fn>(::dlsym(library_, LU_UPDATER_ENTRY_SYMBOL));
        const lu_plugin_info *info = nullptr;
        api_ = entry == nullptr ? nullptr : entry(LU_ABI_VERSION, &info);
        if (api_ == nullptr) throw std::runtime_error("the docker updater does not serve this ABI");
        const lu_updater_host host{sizeof(lu_updater_host), nullptr, nullptr, nullptr};
        lu_message error{nullptr, 0};
        if (api_->create(&host, {"{}", 2}, &updater_, &error) != LU_OK) throw std::runtime_error("create failed");
        digest_ = static_cast<const lu_digest_extension *>(api_->get_extension(updater_, LU_DIGEST_EXTENSION_ID));
        if (digest_ == nullptr) throw std::runtime_error("the docker updater has no " LU_DIGEST_EXTENSION_ID);
    }
    ~DigestingUpdater() {
        if (updater_ != nullptr) api_->destroy(updater_);
        // Not dlclose'd: the process ends right after.
    }

    tree_digest::Digest digest(const std::string &id, const std::string &name, const std::string &path) const {
        const lu_container_ref ref{sizeof(lu_container_ref), id.c_str(), name.c_str(), "", "", ""};
        tree_digest::Digest out;
        lu_message error{nullptr, 0};
        const auto each = [](void *ctx, const lu_digest_entry *e) -> int32_t {
            static_cast<tree_digest::Digest *>(ctx)->push_back({std::string(e->path.data, e->path.size),
                                                                static_cast<tree_digest::EntryKind>(e->kind), e->mode,
                                                                e->size, e->hash});
            return 0;
        };
        const int32_t rc =
            digest_->digest(updater_, &ref, {path.data(), path.size()}, each, &out, nullptr, nullptr, &error);
        if (rc != LU_OK) {
            const std::string why =
                error.data != nullptr ? std::string(error.data, error.size) : "rc " + std::to_string(rc);
            api_->free_message(&error);
            throw std::runtime_error("digest failed: " + why);
        }
        return out;
    }

private:
    void *library_ = nullptr;
    const lu_updater_api *api_ = nullptr;
    lu_updater *updater_ = nullptr;
    const lu_digest_extension *digest_ = nullptr;
};

// files 1 KiB files (each its own content) under ROOT/app/verify, 100 a folder; the same as a tar archive.
std::string make_tree(const fs::path &root, int files) {
    lu_test::TarBuilder tar;
    for (int i = 0; i < files; ++i) {
        const std::string rel = "app/verify/d" + std::to_string(i / 100) + "/f" + std::to_string(i) + ".txt";
        std::string content(1024, 'x');
        content.replace(0, std::to_string(i).size(), std::to_string(i));
        tar.file(rel, content);
        fs::create_directories((root / rel).parent_path());
        std::ofstream(root / rel, std::ios::binary) << content;
    }
    return tar.finish();
}

}  // namespace

int main(int argc, char **argv) {
    try {
        const int files = argc > 1 ? std::max(1, std::atoi(argv[1])) : 10000;
        const int rounds = argc > 2 ? std::max(1, std::atoi(argv[2])) : 7;
        lu_test::TestContainer container("lu-busybox:latest", "sleep 100000");
        const fs::path local = fs::temp_directory_path() / ("i13v-verify-bench-" + std::to_string(::getpid()));
        const std::string archive_file = local.string() + ".tar";
        std::ofstream(archive_file, std::ios::binary) << make_tree(local, files);
        lu_bench::raw_docker_exec(container.name(), archive_file);

        const DigestingUpdater updater;
        const updater::CopyMapping target{(local / "app/verify").string(), "/app/verify"};
        auto start = Clock::now();
        const auto first = updater.digest(container.id(), container.name(), target.container_path);
        const double first_ms = ms_since(start);
        if (first.size() != static_cast<std::size_t>(files) + files / 100 + (files % 100 != 0) + 1)
            throw std::runtime_error("the digest has " + std::to_string(first.size()) + " entries");

        const std::string reference =
            "docker exec " + container.name() + " sh -c 'tar -c -C /app/verify . | sha256sum'";
        std::vector<double> times[3];
        for (int round = 0; round < rounds; ++round) {
            for (int k = 0; k < 3; ++k) {
                const int side = (round + k) % 3;
                const auto t0 = Clock::now();
                if (side == 0) {
                    updater.digest(container.id(), container.name(), target.container_path);
                } else if (side == 1) {
                    // As the verifier does: the local tree, then the container's.
                    bool found = false;
                    const auto here = tree_digest::digest_tree(target.local_path, {}, found);
                    const auto there = updater.digest(container.id(), container.name(), target.container_path);
                    if (!host::verify::compare_target(target, here, there, {}, {}).empty())
                        throw std::runtime_error("the trees differ");
                } else {
                    lu_test::sh_ok(reference);
                }
                times[side].push_back(ms_since(t0));
            }
        }
        std::error_code ec;
        fs::remove_all(local, ec);
        fs::remove(archive_file, ec);

        std::printf("verify_bench: %d files of 1 KiB in %s, engine %s, %d rounds\n", files, container.name().c_str(),
                    lu_test::sh_ok("docker version -f '{{.Server.Version}}'").c_str(), rounds);
        std::printf("first digest (lu-agent copied in and started): %.1f ms\n", first_ms);
        const char *labels[3] = {"container digest via lu-agent", "whole verify (local + agent + compare)",
                                 "reference: tar -c | sha256sum (docker exec)"};
        const double ref = lu_bench::percentile(times[2], 0.5);
        for (int side = 0; side < 3; ++side)
            std::printf("%-44s median %8.1f ms  p95 %8.1f ms  reference/this %.2fx\n", labels[side],
                        lu_bench::percentile(times[side], 0.5), lu_bench::percentile(times[side], 0.95),
                        ref / lu_bench::percentile(times[side], 0.5));
        return 0;
    } catch (const std::exception &e) {
        std::fprintf(stderr, "verify_bench: %s\n", e.what());
        return 1;
    }
}
