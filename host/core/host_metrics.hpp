// What lu-host counts, by name: the daemon's figures (GET /metrics on the
// status page) and the webhook's (GET /metrics on its listener), each
// endpoint showing only its own and the hot reloads both have. The parts
// that do the work record here.
//
// Daemon (`lu-host up`):
//   lu_updates_total{live_update,result}     LiveUpdate updates (a reconcile that updated containers); result ok|failed
//   lu_update_duration_seconds{live_update}  how long each took (histogram)
//   lu_update_files{live_update}             files changed per update (histogram)
//   lu_container_updates_total{live_update,updater,result}  container updates; result: the outcome's kind
//   lu_container_update_bytes{live_update}   archive bytes sent per container update (histogram)
//   lu_verify_repairs_total{live_update}     containers a verification repaired
//   lu_sync_back_conflicts_total{live_update}  sync-back conflicts
//   lu_agent_sessions_total{updater}         lu-agent sessions started, first ones and reconnects
//   lu_agent_reconnects_total{updater}       lu-agent sessions started again after one ended or broke
//                                            (both as the updater counts: from zero when it is loaded)
// Both:
//   lu_hot_reloads_total{plugin,result}      hot reloads of a plugin file; result loaded|refused
// Webhook (`lu-host webhook`):
//   lu_admission_requests_total{webhook,kind,operation,verdict}  webhook validate|mutate;
//                                            verdict allowed|denied|patched|invalid
//   lu_admission_duration_seconds{webhook}   time to answer (histogram)
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "host/core/metrics.hpp"
#include "host/core/updater_registry.hpp"

namespace liveupdate::host::metrics {

// The text GET /metrics answers with (Content-Type kContentType).
std::string daemon_metrics_text();
std::string webhook_metrics_text();

// One LiveUpdate update, as the daemon saw it end.
struct UpdateFigures {
    std::string live_update;
    bool ok = true;
    double seconds = 0;
    std::size_t files = 0;
};
void record_update(const UpdateFigures &update);

// result: the outcome's kind as the step documents spell it ("success", "run_failure", ...).
void record_container_update(const std::string &live_update, const std::string &updater, const std::string &result,
                             std::uint64_t archive_bytes);
void record_verify_repair(const std::string &live_update);
void record_sync_back_conflict(const std::string &live_update);
void record_hot_reload(const std::string &plugin_file, bool loaded);
// lu_agent_sessions_total and lu_agent_reconnects_total, read from the
// updaters at each scrape, until the handle is dropped.
[[nodiscard]] std::shared_ptr<void> collect_agent_sessions(const UpdaterRegistry &updaters);

struct AdmissionFigures {
    std::string webhook;  // "validate", "mutate"
    std::string kind, operation;
    std::string verdict;  // "allowed", "denied", "patched", "invalid"
    double seconds = 0;
};
void record_admission(const AdmissionFigures &admission);

}  // namespace liveupdate::host::metrics
