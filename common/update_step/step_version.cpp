#include "common/update_step/step_version.hpp"

#include <string>

#include "common/json_fields.hpp"

namespace liveupdate::update_step {

int step_version(const boost::json::object &step, int max_step_version) {
    const boost::json::value *version = common::member_as_written(step, "stepVersion");
    if (version == nullptr) return 1;
    if (!(version->is_int64() && version->get_int64() >= 1 && version->get_int64() <= max_step_version))
        throw common::DecodeError("stepVersion", "the step is of stepVersion " + boost::json::serialize(*version) +
                                                     ", this host reads 1 to " + std::to_string(max_step_version) +
                                                     " only");
    return static_cast<int>(version->get_int64());
}

}  // namespace liveupdate::update_step
