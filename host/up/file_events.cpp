#include "up/file_events.hpp"

namespace liveupdate::up {
namespace json = boost::json;

void append_file_event(json::object &status, MicroTime time, const std::vector<std::string> &paths) {
    json::array seen;
    for (const auto &p : paths) seen.emplace_back(p);
    json::value &events = status["fileEvents"];
    if (!events.is_array()) events = json::array();
    json::array &list = events.as_array();
    list.push_back(json::object{{"time", time.format()}, {"seenFiles", std::move(seen)}});
    if (list.size() > kMaxFileEvents) list.erase(list.begin(), list.begin() + (list.size() - kMaxFileEvents));
    status["lastEventTime"] = time.format();
}

}  // namespace liveupdate::up
