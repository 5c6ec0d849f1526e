#include "host/verify/verify_report_log.hpp"

#include <cstddef>

namespace liveupdate::host::verify {

using common::LogLevel;

namespace {

// Differences listed in a LiveUpdate's log per container and check.
constexpr std::size_t kLinesLogged = 20;

}  // namespace

bool LeftForSyncBackSaid::changed(const std::string &live_update, const std::string &container,
                                  const ContainerReport &report) {
    std::set<std::string> left;
    for (const Difference &d : report.left_for_sync_back) left.insert(d.container_path);
    common::MutexLock lock(mutex_);
    std::set<std::string> &said = said_[{live_update, container}];
    if (said == left) return false;
    said = std::move(left);
    return true;
}

void log_verify_report(const LiveUpdateReport &report, const std::string &reason, const LogSinkFn &log,
                       LeftForSyncBackSaid &said, bool asked) {
    for (const auto &c : report.containers) {
        // A check that could not look says nothing of what is left.
        const bool left_changed = c.error.empty() && said.changed(report.name, c.id.empty() ? c.container : c.id, c);
        const LogLevel left_level = asked || left_changed ? LogLevel::info : LogLevel::debug;
        if (c.found.empty()) {
            if (c.error.empty()) log(LogLevel::debug, "verify (" + reason + "): " + c.container + ": in sync");
            continue;
        }
        // All it found is the container's to bring back, or an open conflict
        // (shown as one): said as that, not as a difference to mend.
        if (!c.repaired && c.clean() && !c.left_for_sync_back.empty()) {
            log(left_level, "verify (" + reason + "): " + c.container + ": " +
                                std::to_string(c.left_for_sync_back.size()) +
                                " file(s) left for sync back (the container changed them since both sides last "
                                "agreed: they come back, or are a conflict); nothing to send");
            for (const auto &line : difference_lines(c.found, kLinesLogged)) log(LogLevel::debug, "- " + line);
            continue;
        }
        log(LogLevel::warn, "verify (" + reason + "): " + c.container + ": " + std::to_string(c.found.missing.size()) +
                                " missing, " + std::to_string(c.found.extra.size()) + " extra, " +
                                std::to_string(c.found.different.size()) + " different" +
                                (c.repaired ? "; repaired" : ""));
        for (const auto &line : difference_lines(c.found, kLinesLogged)) log(LogLevel::info, "- " + line);
        // Left on purpose: they come back (or are a conflict), as the repair's own log says.
        if (c.repaired && !c.left_for_sync_back.empty())
            log(left_level, "verify: " + c.container + ": " + std::to_string(c.left_for_sync_back.size()) +
                                " file(s) left for sync back");
        if (c.repaired && !c.remaining.empty()) {
            log(LogLevel::error, "verify: " + c.container + ": " + std::to_string(c.remaining.count()) +
                                     " difference(s) remain after the repair");
            for (const auto &line : difference_lines(c.remaining, kLinesLogged)) log(LogLevel::error, "- " + line);
        }
    }
}

}  // namespace liveupdate::host::verify
