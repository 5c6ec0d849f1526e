// The opaque handles behind the C ABI and the conversions of engine results
// to the JSON documents liveupdate_plugin.h describes.
#pragma once

#include <memory>
#include <string>

#include <boost/json.hpp>

#include "liveupdate/liveupdate_plugin.h"
#include "plugin/core/engine.hpp"

struct lu_engine {
    lu_engine_host host{};
    std::unique_ptr<liveupdate::Engine> engine;
};

struct lu_reconcile {
    std::unique_ptr<liveupdate::ReconcileSession> session;
    lu_engine_host host{};  // its engine's, for diagnostics
    int step_version = 1;
};

namespace liveupdate::abi_impl {

boost::json::object admission_document(const AdmissionResult &admission, const std::vector<std::string> &due);
// An admission document rejecting input that could not be decoded at all.
boost::json::object rejection_document(std::string_view message);
// The host's table as far as both sides know it: the first
// min(host->struct_size, sizeof(lu_engine_host)) bytes, the rest left empty.
lu_engine_host copy_host(const lu_engine_host *host) noexcept;
// A diagnostic through the host's log, when it has one.
void log_to_host(const lu_engine_host &host, lu_log_level level, std::string_view line) noexcept;
boost::json::array string_array(const std::vector<std::string> &items);
struct CreateOptions {
    common::MicroTime start_time;
    int step_version = 1;  // the newest this plugin and the host both read
};
// Reads {"startTime": TIME, "maxStepVersion": N}; throws common::DecodeError.
CreateOptions create_options(std::string_view options_json);

}  // namespace liveupdate::abi_impl
