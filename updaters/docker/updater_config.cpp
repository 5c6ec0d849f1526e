#include "updaters/docker/updater_config.hpp"

#include <boost/json.hpp>
#include <stdexcept>

namespace liveupdate::docker {
namespace {

std::string string_field(const boost::json::object &o, const char *key) {
    const auto *v = o.if_contains(key);
    if (v == nullptr || v->is_null()) return {};
    if (!v->is_string())
        throw std::invalid_argument(std::string("docker updater config: '") + key + "' must be a string");
    return std::string(v->as_string());
}

std::chrono::seconds seconds_field(const boost::json::object &o, const char *key, std::chrono::seconds fallback) {
    const auto *v = o.if_contains(key);
    if (v == nullptr || v->is_null()) return fallback;
    const bool integral = v->is_int64() || v->is_uint64();
    const long long n = v->is_int64() ? v->as_int64() : v->is_uint64() ? static_cast<long long>(v->as_uint64()) : 0;
    if (!integral || n <= 0 || n > 24 * 3600)
        throw std::invalid_argument(std::string("docker updater config: '") + key +
                                    "' must be a whole number of seconds between 1 and 86400");
    return std::chrono::seconds(n);
}

}  // namespace

UpdaterConfig parse_updater_config(std::string_view json) {
    UpdaterConfig config;
    if (json.find_first_not_of(" \t\r\n") == std::string_view::npos) return config;
    boost::system::error_code ec;
    const auto value = boost::json::parse(json, ec);
    if (ec) throw std::invalid_argument("docker updater config: not JSON: " + ec.message());
    if (!value.is_object()) throw std::invalid_argument("docker updater config: must be a JSON object");
    const auto &o = value.as_object();
    for (const auto &field : o) {
        const auto key = std::string_view(field.key());
        if (key != "user" && key != "host" && key != "apiVersion" && key != "timeoutSeconds" &&
            key != "runTimeoutSeconds" && key != "agent" && key != "agentPath")
            throw std::invalid_argument("docker updater config: unknown field '" + std::string(key) + "'");
    }
    config.user = string_field(o, "user");
    config.host = string_field(o, "host");
    config.api_version = string_field(o, "apiVersion");
    if (config.api_version.starts_with("v")) config.api_version.erase(0, 1);
    config.timeout = seconds_field(o, "timeoutSeconds", config.timeout);
    config.run_timeout = seconds_field(o, "runTimeoutSeconds", config.run_timeout);
    if (const auto *agent = o.if_contains("agent"); agent != nullptr && !agent->is_null()) {
        if (!agent->is_bool()) throw std::invalid_argument("docker updater config: 'agent' must be true or false");
        config.agent = agent->as_bool();
    }
    config.agent_path = string_field(o, "agentPath");
    return config;
}

}  // namespace liveupdate::docker
