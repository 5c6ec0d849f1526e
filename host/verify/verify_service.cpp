#include "host/verify/verify_service.hpp"

#include <algorithm>
#include <cstddef>

#include "common/json_fields.hpp"
#include "common/mutex.hpp"
#include "host/core/host_metrics.hpp"
#include "host/verify/repaired_failures.hpp"
#include "host/verify/verify_report_log.hpp"
#include "liveupdate/ext/digest.h"

namespace liveupdate::host::verify {
namespace json = boost::json;
using common::LogLevel;

namespace {

std::string name_of(const json::object &live_update) {
    return common::string_field(live_update.at("metadata"), {"name"});
}

}  // namespace

VerifyService::VerifyService(Parts parts, Schedule schedule)
    : p_(std::move(parts)), schedule_(schedule), verifier_(p_.updaters, p_.executor), first_sight_(p_.synced) {
    if (schedule_.every.count() > 0 || schedule_.after_loss) {
        VerifySchedule::ProbeFn probe;
        if (schedule_.after_loss)
            probe = [this] {
                auto reason = reconnected_updaters();
                return reason ? reason : unchecked_containers();
            };
        timer_ = std::make_unique<VerifySchedule>(
            VerifySchedule::Timing{schedule_.every}, [this](const std::string &reason) { on_schedule(reason); },
            std::move(probe), p_.last_file_change);
    }
}

void VerifyService::request(const std::string &reason) {
    if (schedule_.after_loss && timer_) timer_->request(reason);
}

void VerifyService::stop() {
    verifier_.cancel();  // a check in progress ends within moments
    timer_.reset();
}

std::vector<LiveUpdateReport> VerifyService::verify(const std::vector<std::string> &names, bool repair,
                                                    bool delete_extra) {
    // Every LiveUpdate's targets: a target nested in another is left to its own LiveUpdate.
    std::vector<LiveUpdateTargets> all;
    for (const auto &lu : p_.store.list("LiveUpdate")) all.push_back(resolve_targets(name_of(lu), p_.plugin_slot));
    std::vector<LiveUpdateReport> reports;
    for (const auto &name : names) {
        const auto found =
            std::find_if(all.begin(), all.end(), [&](const LiveUpdateTargets &t) { return t.name == name; });
        LiveUpdateTargets targets = found != all.end() ? *found : resolve_targets(name, p_.plugin_slot);
        if (found == all.end())
            if (auto why = p_.rejection(name))
                targets.problem = "LiveUpdate \"" + name + "\" was rejected (" + *why + ")";
        const std::function<bool()> change_waiting = [&] { return p_.change_waiting && p_.change_waiting(name); };
        p_.exclusive(name, [&] {
            reports.push_back(verifier_.verify(targets, all, repair, p_.log_of(name), delete_extra, change_waiting));
            for (const auto &c : reports.back().containers)
                if (c.repaired) metrics::record_verify_repair(name);
            if (repair && !reports.back().yielded()) first_sight_.checked(targets);
        });
    }
    return reports;
}

json::value VerifyService::handle(const json::object &request) {
    std::vector<std::string> names;
    bool repair = false;
    bool delete_extra = false;
    try {
        if (common::member(request, "names") != nullptr) {
            names = common::string_array_field(request, "names", "");
        } else {
            for (const auto &lu : p_.store.list("LiveUpdate")) names.push_back(name_of(lu));
        }
        repair = common::bool_field(request, "fix", "");
        delete_extra = repair && common::bool_field(request, "deleteExtra", "");
    } catch (const common::DecodeError &e) {
        return json::object{{"error", std::string("verify takes \"names\": a list of LiveUpdate names, \"fix\" and "
                                                  "\"deleteExtra\": booleans; ") +
                                          e.what()}};
    }
    json::array out;
    for (const auto &report : verify(names, repair, delete_extra)) {
        log_verify_report(
            report, "lu-host verify" + std::string(repair ? " --fix" : "") + (delete_extra ? " --delete-extra" : ""),
            p_.log_of(report.name), left_said_, true);
        if (repair && clear_repaired_failures(report, p_.plugin_slot, p_.log_of(report.name))) p_.mark_due(report.name);
        out.push_back(to_json(report));
    }
    return json::object{{"liveUpdates", std::move(out)}};
}

std::vector<std::string> VerifyService::scheduled_live_updates() const {
    // V05. Left out: a manual LiveUpdate holds its changes until a trigger, and
    // one stopped for a rebuild (UpdateStopped) until that rebuild; a repair
    // would send them behind its back. One whose update failed (UpdateFailed)
    // is checked: a repair that brings its container to the sources clears
    // the failure (clear_repaired_failures).
    std::vector<std::string> names;
    for (const auto &lu : p_.store.list("LiveUpdate")) {
        const bool manual = common::string_field(lu, {"metadata", "annotations", "tilt.dev/update-mode"}) == "manual";
        const bool held = common::object_field(lu, {"status", "failed"}) != nullptr &&
                          common::string_field(lu, {"status", "failed", "reason"}) != "UpdateFailed";
        if (!manual && !held) names.push_back(name_of(lu));
    }
    return names;
}

std::optional<std::string> VerifyService::unchecked_containers() {
    std::vector<LiveUpdateTargets> targets;
    for (const auto &name : scheduled_live_updates()) targets.push_back(resolve_targets(name, p_.plugin_slot));
    if (!first_sight_.any_unchecked(targets)) return std::nullopt;
    return std::string("daemon start: a container synced into before");
}

void VerifyService::on_schedule(const std::string &reason) {
    const std::vector<std::string> names = scheduled_live_updates();
    p_.log(LogLevel::debug, "", "verify: checking " + std::to_string(names.size()) + " LiveUpdate(s) (" + reason + ")");
    bool yielded = false;
    for (const auto &report : verify(names, true)) {
        yielded = yielded || report.yielded();
        log_verify_report(report, reason, p_.log_of(report.name), left_said_, false);
        if (clear_repaired_failures(report, p_.plugin_slot, p_.log_of(report.name))) p_.mark_due(report.name);
        // What keeps a LiveUpdate from being checked is said once, not at every check.
        std::string error = report.error;
        for (const auto &c : report.containers)
            if (!c.error.empty()) error += (error.empty() ? "" : "; ") + c.container + ": " + c.error;
        common::MutexLock lock(mutex_);
        std::string &logged = error_logged_[report.name];
        if (error != logged && !error.empty())
            p_.log(LogLevel::warn, report.name,
                   std::string("verify (").append(reason).append("): cannot check: ").append(error));
        logged = error;
    }
    // A check cut short for a change comes again once the files are quiet.
    if (yielded && timer_) timer_->request(reason);
}

std::optional<std::string> VerifyService::reconnected_updaters() {
    std::vector<std::string> reconnected;
    for (const auto &via : p_.updaters.classes()) {
        const std::shared_ptr<const Updater> updater = p_.updaters.find(via);
        if (!updater) continue;
        const auto *table = static_cast<const lu_digest_extension *>(updater->extension(LU_DIGEST_EXTENSION_ID));
        constexpr std::size_t needed = offsetof(lu_digest_extension, reconnect_count) + sizeof(table->reconnect_count);
        if (table == nullptr || table->struct_size < needed || table->reconnect_count == nullptr) continue;
        const std::uint64_t count = table->reconnect_count(updater->handle());
        common::MutexLock lock(mutex_);
        auto &[seen_updater, seen_count] = reconnects_seen_[via];
        // Every updater counts from zero when loaded (a hot reload too): one not
        // looked at before has reconnected when its count is above zero.
        const std::uint64_t before = seen_updater.lock() == updater ? seen_count : 0;
        if (count > before) reconnected.push_back(via);
        seen_updater = updater;
        seen_count = count;
    }
    if (reconnected.empty()) return std::nullopt;
    std::string reason = "the ";
    for (std::size_t i = 0; i < reconnected.size(); ++i) reason += (i > 0 ? ", " : "") + reconnected[i];
    return reason + " updater reconnected to a container";
}

}  // namespace liveupdate::host::verify
