// Follows one collection of the API server (a kind in a namespace): listed,
// then watched from the list's resourceVersion; a 410 Gone (or an ERROR
// event) lists again, a lost connection reconnects with backoff and resumes
// from the last resourceVersion seen. Every list is reported whole (objects
// missing from it are gone), every event one by one, on the watch's thread.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <boost/json.hpp>

#include "common/kube/api_client.hpp"
#include "common/mutex.hpp"
#include "common/stream_cancel.hpp"

namespace liveupdate::host::cluster {

class ResourceWatch {
public:
    struct Handlers {
        std::function<void(const std::vector<boost::json::object> &items)> listed;
        std::function<void(std::string_view type, const boost::json::object &object)>
            event;  // ADDED, MODIFIED, DELETED
        std::function<void(const std::string &warning)> warn;
    };

    // path: the collection ("/apis/tilt.dev/v1alpha1/namespaces/ns/liveupdates");
    // selector: extra query ("fieldSelector=metadata.name%3Dx"), may be empty.
    ResourceWatch(kube::ApiClient &client, std::string path, std::string selector, Handlers handlers);
    ~ResourceWatch();
    ResourceWatch(const ResourceWatch &) = delete;
    ResourceWatch &operator=(const ResourceWatch &) = delete;

    // The first list, on the caller's thread; throws kube::ApiError.
    std::vector<boost::json::object> list();
    // Watches from the first list's resourceVersion until stop().
    void start();
    void stop();

private:
    void follow();
    void watch_once(bool &need_list);
    // One line of the watch: false ends the stream. Throws DecodeError when unreadable.
    bool on_event(const boost::json::value &event, bool &need_list);
    bool pause(std::chrono::milliseconds how_long);

    kube::ApiClient &client_;
    std::string path_;
    std::string selector_;
    Handlers handlers_;
    std::string resource_version_;
    common::StreamCancel cancel_;  // stop() wakes the watch's request where it waits
    common::Mutex mutex_;
    std::condition_variable wake_;
    std::thread thread_;
};

}  // namespace liveupdate::host::cluster
