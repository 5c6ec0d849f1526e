#include "host/compose/compose_rebuilder.hpp"

#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace liveupdate::host::compose {
namespace fs = std::filesystem;

ComposeRebuilder::ComposeRebuilder(LineFn on_line) : on_line_(std::move(on_line)), thread_([this] { run(); }) {}

ComposeRebuilder::~ComposeRebuilder() {
    {
        common::MutexLock lock(mutex_);
        stopping_ = true;
    }
    wake_.notify_all();
    thread_.join();
}

void ComposeRebuilder::request(RebuildJob job) {
    {
        common::MutexLock lock(mutex_);
        if (std::find(queue_.begin(), queue_.end(), job) != queue_.end()) return;
        queue_.push_back(std::move(job));
    }
    wake_.notify_all();
}

void ComposeRebuilder::run() {
    for (;;) {
        RebuildJob job;
        {
            common::MutexLock lock(mutex_);
            lock.wait(wake_, [this]() LU_REQUIRES(mutex_) { return stopping_ || !queue_.empty(); });
            if (stopping_) return;
            job = std::move(queue_.front());
            queue_.pop_front();
        }
        rebuild(job);
    }
}

void ComposeRebuilder::rebuild(const RebuildJob &job) {
    if (!cli_looked_up_) {
        cli_ = find_compose_cli();
        cli_looked_up_ = true;
    }
    if (!cli_) {
        on_line_(job.service, "rebuild: neither `docker compose` nor `docker-compose` is installed", true);
        return;
    }
    std::vector<std::string> files = job.files;
    std::string copies;
    if (cli_->v1) {
        char tmpl[] = "/tmp/lu-compose-v1-XXXXXX";
        if (::mkdtemp(tmpl) == nullptr) {
            on_line_(job.service, "rebuild: cannot create a folder for the docker-compose v1 copies", true);
            return;
        }
        copies = tmpl;
        files.clear();
        for (std::size_t i = 0; i < job.files.size(); ++i) {
            std::ifstream in(job.files[i], std::ios::binary);
            std::ostringstream text;
            text << in.rdbuf();
            const std::string copy =
                copies + "/" + std::to_string(i) + "-" + fs::path(job.files[i]).filename().string();
            try {
                std::ofstream(copy, std::ios::binary) << without_develop(text.str());
            } catch (const std::exception &e) {
                on_line_(job.service, "rebuild: " + job.files[i] + ": " + e.what(), true);
                fs::remove_all(copies);
                return;
            }
            files.push_back(copy);
        }
    }
    const auto argv = rebuild_argv(*cli_, job.project, files, job.directory, job.service);
    std::string line = "rebuild:";
    for (const auto &a : argv) line += " " + a;
    on_line_(job.service, line, false);
    const int status = run_streaming(argv, [&](std::string_view out) { on_line_(job.service, out, false); });
    if (!copies.empty()) {
        std::error_code ec;
        fs::remove_all(copies, ec);
    }
    if (status == 0)
        on_line_(job.service, "rebuild: done; the new container is synced as soon as it runs", false);
    else
        on_line_(job.service, "rebuild: failed (exit " + std::to_string(status) + ")", true);
}

}  // namespace liveupdate::host::compose
