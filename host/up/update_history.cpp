#include "host/up/update_history.hpp"

#include <cmath>

#include "common/json_fields.hpp"

namespace liveupdate::host::up {
namespace json = boost::json;

void UpdateHistory::add(UpdateSample sample) {
    samples_.push_back(std::move(sample));
    while (samples_.size() > kKept) samples_.pop_front();
}

json::array UpdateHistory::to_json() const {
    json::array out;
    for (const UpdateSample &s : samples_)
        out.push_back(json::object{{"at", s.at}, {"ms", s.milliseconds}, {"files", s.files}, {"failed", s.failed}});
    return out;
}

std::optional<UpdateSample> update_sample(const std::vector<json::object> &events, common::MicroTime at,
                                          std::chrono::microseconds took) {
    std::optional<UpdateSample> sample;
    for (const json::object &e : events) {
        const std::string type = common::string_field(e, {"type"});
        if (type == "started") {
            sample = UpdateSample{at.format(), std::round(static_cast<double>(took.count()) / 100.0) / 10.0, 0, false};
            if (const json::value *files = common::member(e, "filesChanged"); files != nullptr && files->is_array())
                sample->files = files->as_array().size();
        } else if (type == "completed" && sample) {
            sample->failed = !common::string_field(e, {"error"}).empty();
        }
    }
    return sample;
}

}  // namespace liveupdate::host::up
