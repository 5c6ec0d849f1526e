// The C ABI face of the docker updater (through liveupdate/updater.hpp).
#include <string_view>
#include <utility>

#include "docker_updater.hpp"
#include "liveupdate/updater.hpp"

namespace {

namespace dk = liveupdate::docker;
namespace lu = liveupdate::updater;

// The result kinds are the ABI's, in its order.
static_assert(static_cast<int>(dk::UpdateResult::Kind::ok) == LU_OUTCOME_OK &&
              static_cast<int>(dk::UpdateResult::Kind::run_failure) == LU_OUTCOME_RUN_FAILURE &&
              static_cast<int>(dk::UpdateResult::Kind::infra_failure) == LU_OUTCOME_INFRA_FAILURE);

dk::ContainerUpdate to_update(const lu::Request &request) {
    dk::ContainerUpdate update{request.container.id, request.container.name, {},   request.archive,
                               request.delete_paths, {},                     request.restart};
    for (const lu::CopyMapping &copy : request.copies) update.copies.push_back({copy.local_path, copy.container_path});
    for (const lu::RunStep &run : request.runs)
        update.runs.push_back({run.argv, run.echo_off, run.user, run.working_dir, run.env, run.privileged});
    return update;
}

class DockerPlugin {
public:
    static constexpr const char *name = "docker";
    static constexpr const char *version = "0.1.0";

    DockerPlugin(std::string_view config_json, const lu::Host &) : updater_(dk::parse_updater_config(config_json)) {}

    lu::Outcome update(const lu::Request &request) {
        const auto log = [&request](dk::LogLevel level, std::string_view line) {
            request.log(static_cast<lu_log_level>(level), line);
        };
        dk::UpdateResult result = updater_.update(to_update(request), log);
        return {static_cast<lu::Outcome::Kind>(result.kind), result.exit_code, std::move(result.message)};
    }

private:
    dk::DockerUpdater updater_;
};

}  // namespace

extern "C" LU_EXPORT const lu_updater_api *lu_updater_plugin_entry(uint32_t abi_version, const lu_plugin_info **out_info) {
    return lu::entry<DockerPlugin>(abi_version, out_info);
}
