#include "host/cluster/resource_watch.hpp"

#include "common/json_fields.hpp"

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
    const json::value answer = json::parse(client_.get(path_ + (selector_.empty() ? "" : "?" + selector_)));
    std::vector<json::object> items;
    if (!answer.is_object()) throw kube::ApiError(200, "", "GET " + path_ + ": the answer is not a JSON object");
    if (const json::value *list = answer.as_object().if_contains("items"); list != nullptr && list->is_array())
        for (const auto &item : list->as_array())
            if (item.is_object()) items.push_back(item.as_object());
    resource_version_ = common::text_at(common::object_at(answer.as_object(), "metadata"), "resourceVersion");
    return items;
}

void ResourceWatch::start() {
    thread_ = std::thread([this] { follow(); });
}

void ResourceWatch::stop() {
    {
        std::lock_guard lock(mutex_);
        cancel_ = true;
    }
    wake_.notify_all();
    if (thread_.joinable()) thread_.join();
}

bool ResourceWatch::pause(std::chrono::milliseconds how_long) {
    std::unique_lock lock(mutex_);
    return !wake_.wait_for(lock, how_long, [this] { return cancel_.load(); });
}

void ResourceWatch::follow() {
    bool need_list = false;
    auto backoff = kMinBackoff;
    while (!cancel_) {
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
void ResourceWatch::watch_once(bool &need_list) {
    const std::string query =
        "?watch=1&allowWatchBookmarks=true&timeoutSeconds=300&resourceVersion=" + kube::url_escape(resource_version_) +
        (selector_.empty() ? "" : "&" + selector_);
    client_.stream_lines(
        path_ + query,
        [&](std::string_view line) {
            boost::system::error_code ec;
            const json::value event = json::parse(line, ec);
            if (ec || !event.is_object()) return true;
            const std::string type = common::text_at(event.as_object(), "type");
            const json::object *object = common::object_at(event.as_object(), "object");
            if (object == nullptr) return true;
            if (type == "ERROR") {
                const json::value *code = object->if_contains("code");
                if (code == nullptr || !code->is_int64() || code->as_int64() != 410)
                    handlers_.warn("watch of " + path_ + ": " + kube::status_message(json::serialize(*object)));
                need_list = true;
                return false;
            }
            if (const std::string rv = common::text_at(common::object_at(*object, "metadata"), "resourceVersion");
                !rv.empty())
                resource_version_ = rv;
            if (type != "BOOKMARK") handlers_.event(type, *object);
            return true;
        },
        cancel_);
}

}  // namespace liveupdate::host::cluster
