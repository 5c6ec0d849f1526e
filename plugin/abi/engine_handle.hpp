// The opaque handles behind the C ABI and the conversions of engine results
// to the JSON documents liveupdate_plugin.h describes.
#pragma once

#include <memory>
#include <string>

#include <boost/json.hpp>

#include "plugin/core/engine.hpp"
#include "liveupdate/liveupdate_plugin.h"

struct lu_engine {
    lu_engine_host host{};
    std::unique_ptr<liveupdate::Engine> engine;
};

struct lu_reconcile {
    std::unique_ptr<liveupdate::ReconcileSession> session;
};

namespace liveupdate::abi_impl {

boost::json::object admission_document(const AdmissionResult &admission, const std::vector<std::string> &due);
boost::json::array string_array(const std::vector<std::string> &items);
// Reads {"startTime": TIME}; throws json_fields::DecodeError.
MicroTime start_time_option(std::string_view options_json);

}  // namespace liveupdate::abi_impl
