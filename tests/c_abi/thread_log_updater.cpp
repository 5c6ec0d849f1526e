// A test updater plugin (through liveupdate/updater.hpp) that logs each
// update's line from a std::thread it spawns, as updaters reading command
// output on a thread of their own do. The line names the LiveUpdate, so a test
// can see that it reached that LiveUpdate's log and no other.
#include <string_view>
#include <thread>

#include "liveupdate/updater.hpp"

namespace {

namespace lu = liveupdate::updater;

class ThreadLogUpdater {
public:
    static constexpr const char *name = "thread-log";
    static constexpr const char *version = "0.0.1";

    ThreadLogUpdater(std::string_view, const lu::Host &) {}

    lu::Outcome update(const lu::Request &request) {
        std::thread worker([&request] { request.log(LU_LOG_INFO, "worker thread of " + request.live_update); });
        worker.join();
        return lu::Outcome::ok();
    }
};

}  // namespace

extern "C" LU_EXPORT const lu_updater_api *lu_updater_plugin_entry(uint32_t abi_version,
                                                                   const lu_plugin_info **out_info) {
    return lu::entry<ThreadLogUpdater>(abi_version, out_info);
}
