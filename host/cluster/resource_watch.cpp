#include "host/cluster/resource_watch.hpp"

#include "common/json_fields.hpp"
#include "common/mutex.hpp"

namespace liveupdate::host::cluster {
namespace json = boost::json;

namespace {

constexpr std::chrono::milliseconds kMinBackoff{250};
constexpr std::chrono::milliseconds kMaxBackoff{5000};

}  // namespace

ResourceWatch::ResourceWatch(kube::ApiClient &client, std::string path, std::string selector, Handlers handlers)
    : client_(client), path_(std::move(path)), selector_(std::move(selector)), handlers_(std::move(handlers)) {}

ResourceWatch::~ResourceWatch() { stop(); }

std::vector<json::object> ResourceWatch::list() {
    std::vector<json::object> items;
    try {
        const json::value answer =
            common::parse_limited(client_.get(path_ + (selector_.empty() ? "" : "?" + selector_)));
        const json::array *list = common::array_field(answer, {"items"});
        for (std::size_t i = 0; list != nullptr && i < list->size(); ++i)
            items.push_back(common::expect_object((*list)[i], common::index("items", i)));
        resource_version_ = common::string_field(answer, {"metadata", "resourceVersion"});
    } catch (const common::DecodeError &e) {
        throw kube::ApiError(200, "", "GET " + path_ + ": the answer: " + e.what());
    }
    return items;
}

void ResourceWatch::start() {
    thread_ = std::thread([this] { follow(); });
}

void ResourceWatch::stop() {
    {
        common::MutexLock lock(mutex_);
        cancel_.cancel();
    }
    wake_.notify_all();
    if (thread_.joinable()) thread_.join();
}

bool ResourceWatch::pause(std::chrono::milliseconds how_long) {
    common::MutexLock lock(mutex_);
    return !lock.wait_for(wake_, how_long, [this] { return cancel_.cancelled(); });
}

void ResourceWatch::follow() {
    bool need_list = false;
    auto backoff = kMinBackoff;
    while (!cancel_.cancelled()) {
        try {
            if (need_list) {
                handlers_.listed(list());
                need_list = false;
            }
            watch_once(need_list);
            backoff = kMinBackoff;
        } catch (const kube::ApiError &e) {
            if (e.status == 410) {
                need_list = true;  // our resourceVersion is too old: start again from a list
                continue;
            }
            handlers_.warn("watch of " + path_ + ": " + e.what() + "; retrying");
            if (!pause(backoff)) return;
            backoff = std::min(backoff * 2, kMaxBackoff);
        } catch (const std::exception &e) {
            handlers_.warn("watch of " + path_ + ": " + e.what() + "; listing again");
            need_list = true;
            if (!pause(backoff)) return;
            backoff = std::min(backoff * 2, kMaxBackoff);
        }
    }
}

// One watch request until the server ends it.
bool ResourceWatch::on_event(const json::value &event, bool &need_list) {
    const std::string type = common::string_field(event, {"type"});
    const json::object *object = common::object_field(event, {"object"});
    if (object == nullptr) throw common::DecodeError("object", "required");
    if (type == "ERROR") {
        if (common::int_field(*object, "code", "object") != 410)
            handlers_.warn("watch of " + path_ + ": " + kube::status_message(json::serialize(*object)));
        need_list = true;
        return false;
    }
    if (const std::string rv = common::string_field(*object, {"metadata", "resourceVersion"}); !rv.empty())
        resource_version_ = rv;
    if (type != "BOOKMARK") handlers_.event(type, *object);
    return true;
}

void ResourceWatch::watch_once(bool &need_list) {
    const std::string query =
        "?watch=1&allowWatchBookmarks=true&timeoutSeconds=300&resourceVersion=" + kube::url_escape(resource_version_) +
        (selector_.empty() ? "" : "&" + selector_);
    client_.stream_lines(
        path_ + query,
        [&](std::string_view line) {
            try {
                return on_event(common::parse_limited(line), need_list);
            } catch (const common::DecodeError &e) {
                // Which object changed is unknown: a fresh list misses nothing.
                handlers_.warn("watch of " + path_ + ": an unreadable event (" + e.what() + "); listing again");
                need_list = true;
                return false;
            }
        },
        cancel_);
}

}  // namespace liveupdate::host::cluster
