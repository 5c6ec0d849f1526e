// A sample updater plugin for third parties: it logs every call it gets and
// applies updates to a folder, as the `local` updater does. Settings:
//   {"workingDir": "/app",          where commands run (container path; default "/")
//    "callLog": "/tmp/calls.jsonl"} one JSON line per call appended there (optional)
// Build it against the installed SDK (see CMakeLists.txt) and choose it in the
// updater configuration of `lu-host up --config FILE`:
//   {"updaters": {"local": {"plugin": "/path/to/libupdater_sample.so", "settings": {...}}}}
//
// liveupdate/updater.hpp turns the class below into the C ABI table: it hands
// over the request as C++ values, maps exceptions to result codes and
// outcomes, and owns the messages crossing the boundary.
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <mutex>
#include <stdexcept>
#include <string>

#include <boost/json.hpp>

#include "folder_update.hpp"
#include "liveupdate/updater.hpp"

namespace {

namespace json = boost::json;
namespace lu = liveupdate::updater;

json::object parsed_settings(std::string_view settings_json) {
    boost::system::error_code ec;
    json::value settings = json::parse(settings_json.empty() ? std::string_view("{}") : settings_json, ec);
    if (ec || !settings.is_object()) throw std::invalid_argument("sample updater: settings must be a JSON object");
    return std::move(settings.as_object());
}

class SampleUpdater {
public:
    static constexpr const char *name = "sample";  // errors thrown by update() read "sample updater: ..."
    static constexpr const char *version = "0.1.0";

    // Refusing the settings: throw std::invalid_argument (its text is the error the host shows).
    SampleUpdater(std::string_view settings_json, const lu::Host &host) : host_(host) {
        const json::object settings = parsed_settings(settings_json);
        for (const auto &[key, value] : settings) {
            if ((key != "workingDir" && key != "callLog") || !value.is_string()) {
                throw std::invalid_argument("sample updater: unknown or non-string setting \"" + std::string(key) +
                                            "\" (workingDir, callLog)");
            }
            (key == "workingDir" ? working_dir_ : call_log_) = std::string(value.as_string());
        }
        host_.log(LU_LOG_INFO, "sample updater: created (workingDir " + working_dir_ + ")");
        record_call({{"call", "create"}, {"settings", settings}});
    }

    ~SampleUpdater() { record_call({{"call", "destroy"}, {"updates", updates_.load()}}); }

    // Called concurrently for different containers.
    lu::Outcome update(const lu::Request &request) {
        const unsigned long number = ++updates_;
        const lu::ContainerRef &container = request.container;
        json::array copies, deletes(request.delete_paths.begin(), request.delete_paths.end());
        for (const lu::CopyMapping &copy : request.copies) copies.emplace_back(copy.container_path);
        request.log(LU_LOG_INFO, "sample updater: update #" + std::to_string(number) + " of " + request.live_update +
                                     " via " + request.via + " in " + container.name + ": " +
                                     std::to_string(copies.size()) + " to copy, " + std::to_string(deletes.size()) +
                                     " to delete, " + std::to_string(request.runs.size()) + " to run");

        lu::Outcome outcome;
        std::error_code ec;
        const std::filesystem::path root = std::filesystem::canonical(container.root, ec);
        if (container.root.empty() || ec) {
            outcome =
                lu::Outcome::infra_failure("sample updater: no usable container folder \"" + container.root + "\"");
        } else {
            outcome = sample::apply_to_folder(root.string(), working_dir_, request,
                                              [&request](std::string_view line) { request.log(LU_LOG_INFO, line); });
        }
        if (outcome.kind == lu::Outcome::Kind::ok && request.restart) outcome = restart(container);
        static constexpr const char *kOutcomes[] = {"ok", "runFailure", "infraFailure"};
        record_call({{"call", "update"},
                     {"number", number},
                     {"liveUpdate", request.live_update},
                     {"via", request.via},
                     {"container", container.name},
                     {"copy", std::move(copies)},
                     {"delete", std::move(deletes)},
                     {"runs", request.runs.size()},
                     {"restart", request.restart},
                     {"initialSync", request.initial_sync},
                     {"outcome", kOutcomes[static_cast<int>(outcome.kind)]}});
        return outcome;
    }

private:
    // Restarting is the host's job: it offers it to local containers through an extension.
    lu::Outcome restart(const lu::ContainerRef &container) const {
        const lu::LocalContainers local = host_.local_containers();
        if (!local) return lu::Outcome::infra_failure("sample updater: the host cannot restart containers");
        if (const std::string error = local.restart(container); !error.empty())
            return lu::Outcome::infra_failure("sample updater: restart failed: " + error);
        return lu::Outcome::ok();
    }

    void record_call(const json::object &call) {
        if (call_log_.empty()) return;
        const std::string line = json::serialize(call) + "\n";
        std::lock_guard lock(call_log_mutex_);
        if (std::FILE *file = std::fopen(call_log_.c_str(), "a")) {
            std::fwrite(line.data(), 1, line.size(), file);
            std::fclose(file);
        }
    }

    lu::Host host_;
    std::string working_dir_ = "/";
    std::string call_log_;
    std::mutex call_log_mutex_;
    std::atomic<unsigned long> updates_{0};
};

}  // namespace

extern "C" LU_EXPORT const lu_updater_api *lu_updater_plugin_entry(uint32_t abi_version,
                                                                   const lu_plugin_info **out_info) {
    return lu::entry<SampleUpdater>(abi_version, out_info);
}
