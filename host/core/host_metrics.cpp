#include "host/core/host_metrics.hpp"

#include <cstddef>
#include <map>
#include <utility>

#include "liveupdate/ext/digest.h"

namespace liveupdate::host::metrics {

namespace {

// From a 5 ms save to a first sync of a large tree.
const std::vector<double> kSecondsBounds{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60};
const std::vector<double> kFilesBounds{1, 2, 5, 10, 20, 50, 100, 500, 1000, 10000};
const std::vector<double> kBytesBounds{1024, 16384, 131072, 1048576, 16777216, 134217728, 1073741824};
const std::vector<double> kAdmissionBounds{0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5};

struct DaemonFamilies {
    Registry registry;
    Family<Counter> &updates =
        registry.counter("lu_updates_total", "LiveUpdate updates (reconciles that updated containers), by result",
                         {"live_update", "result"});
    Family<Histogram> &update_seconds = registry.histogram(
        "lu_update_duration_seconds", "How long a LiveUpdate update took", {"live_update"}, kSecondsBounds);
    Family<Histogram> &update_files =
        registry.histogram("lu_update_files", "Files changed per LiveUpdate update", {"live_update"}, kFilesBounds);
    Family<Counter> &container_updates =
        registry.counter("lu_container_updates_total", "Container updates, by updater and the outcome's kind",
                         {"live_update", "updater", "result"});
    Family<Histogram> &container_bytes = registry.histogram(
        "lu_container_update_bytes", "Archive bytes sent per container update", {"live_update"}, kBytesBounds);
    Family<Counter> &verify_repairs =
        registry.counter("lu_verify_repairs_total", "Containers a verification repaired", {"live_update"});
    Family<Counter> &sync_back_conflicts =
        registry.counter("lu_sync_back_conflicts_total", "Sync-back conflicts", {"live_update"});
};

struct SharedFamilies {
    Registry registry;
    Family<Counter> &hot_reloads = registry.counter(
        "lu_hot_reloads_total", "Hot reloads of a plugin file, loaded or refused", {"plugin", "result"});
};

struct WebhookFamilies {
    Registry registry;
    Family<Counter> &requests =
        registry.counter("lu_admission_requests_total", "Admission requests, by webhook, kind, operation and verdict",
                         {"webhook", "kind", "operation", "verdict"});
    Family<Histogram> &seconds = registry.histogram(
        "lu_admission_duration_seconds", "How long answering an admission request took", {"webhook"}, kAdmissionBounds);
};

using CountFn = std::uint64_t (*)(lu_updater *);

// One sample per loaded updater whose digest table has the count at `offset`
// (the table only grows: a member is read only when struct_size covers it).
std::vector<Sample> counts_of_updaters(const UpdaterRegistry &updaters, std::size_t offset,
                                       CountFn lu_digest_extension::*count) {
    std::vector<Sample> samples;
    for (const auto &via : updaters.classes()) {
        const std::shared_ptr<const Updater> updater = updaters.find(via);
        if (!updater) continue;
        const auto *table = static_cast<const lu_digest_extension *>(updater->extension(LU_DIGEST_EXTENSION_ID));
        if (table == nullptr || table->struct_size < offset + sizeof(CountFn) || table->*count == nullptr) continue;
        samples.push_back({{via}, static_cast<double>((table->*count)(updater->handle()))});
    }
    return samples;
}

DaemonFamilies &daemon() {
    static DaemonFamilies families;
    return families;
}

SharedFamilies &shared() {
    static SharedFamilies families;
    return families;
}

WebhookFamilies &webhook() {
    static WebhookFamilies families;
    return families;
}

}  // namespace

std::string daemon_metrics_text() { return daemon().registry.render() + shared().registry.render(); }
std::string webhook_metrics_text() { return webhook().registry.render() + shared().registry.render(); }

void record_update(const UpdateFigures &update) {
    DaemonFamilies &d = daemon();
    d.updates.with({update.live_update, update.ok ? "ok" : "failed"}).add();
    d.update_seconds.with({update.live_update}).observe(update.seconds);
    d.update_files.with({update.live_update}).observe(static_cast<double>(update.files));
}

void record_container_update(const std::string &live_update, const std::string &updater, const std::string &result,
                             std::uint64_t archive_bytes) {
    DaemonFamilies &d = daemon();
    d.container_updates.with({live_update, updater, result}).add();
    d.container_bytes.with({live_update}).observe(static_cast<double>(archive_bytes));
}

void record_verify_repair(const std::string &live_update) { daemon().verify_repairs.with({live_update}).add(); }

void record_sync_back_conflict(const std::string &live_update) {
    daemon().sync_back_conflicts.with({live_update}).add();
}

void record_hot_reload(const std::string &plugin_file, bool loaded) {
    shared().hot_reloads.with({plugin_file, loaded ? "loaded" : "refused"}).add();
}

std::shared_ptr<void> collect_agent_sessions(const UpdaterRegistry &updaters) {
    Registry &registry = daemon().registry;
    auto sessions = registry.collected_counter(
        "lu_agent_sessions_total", "lu-agent sessions started, first ones and reconnects (from the updater's load)",
        {"updater"}, [&updaters] {
            return counts_of_updaters(updaters, offsetof(lu_digest_extension, session_count),
                                      &lu_digest_extension::session_count);
        });
    auto reconnects = registry.collected_counter(
        "lu_agent_reconnects_total",
        "lu-agent sessions started again after one ended or broke (from the updater's load)", {"updater"}, [&updaters] {
            return counts_of_updaters(updaters, offsetof(lu_digest_extension, reconnect_count),
                                      &lu_digest_extension::reconnect_count);
        });
    return std::make_shared<std::pair<std::shared_ptr<void>, std::shared_ptr<void>>>(std::move(sessions),
                                                                                     std::move(reconnects));
}

void record_admission(const AdmissionFigures &admission) {
    WebhookFamilies &w = webhook();
    w.requests.with({admission.webhook, admission.kind, admission.operation, admission.verdict}).add();
    w.seconds.with({admission.webhook}).observe(admission.seconds);
}

}  // namespace liveupdate::host::metrics
