#include "common/kube/exec_frames.hpp"

#include <boost/json.hpp>

#include <exception>

namespace liveupdate::kube {
namespace {

namespace json = boost::json;

bool mentions_missing_executable(std::string_view m) {
    return m.find("executable file not found") != std::string_view::npos ||
           m.find("no such file or directory") != std::string_view::npos;
}

}  // namespace

void append_exec_frame(std::string_view frame, ExecChannels &into) {
    if (frame.empty()) return;
    const auto channel = static_cast<unsigned char>(frame[0]);
    if (channel == kExecStdout)
        into.out.append(frame.substr(1));
    else if (channel == kExecStderr)
        into.err.append(frame.substr(1));
    else if (channel == kExecStatus)
        into.status.append(frame.substr(1));
}

int exit_code_of_status(std::string_view status_json, std::string &failure) {
    boost::system::error_code ec;
    const json::value v = json::parse(status_json, ec);
    if (ec || !v.is_object()) {
        failure = "unreadable exec status: " + std::string(status_json.substr(0, 200));
        return -1;
    }
    const auto &o = v.as_object();
    const auto text = [](const json::object &obj, const char *key) {
        const auto *x = obj.if_contains(key);
        return x != nullptr && x->is_string() ? std::string(x->as_string()) : std::string();
    };
    if (text(o, "status") == "Success") return 0;
    const std::string message = text(o, "message");
    if (const auto *details = o.if_contains("details"); details != nullptr && details->is_object())
        if (const auto *causes = details->as_object().if_contains("causes"); causes != nullptr && causes->is_array())
            for (const auto &c : causes->as_array())
                if (c.is_object() && text(c.as_object(), "reason") == "ExitCode") {
                    try {
                        return std::stoi(text(c.as_object(), "message"));
                    } catch (const std::exception &) {
                        break;
                    }
                }
    failure = message.empty() ? std::string(status_json.substr(0, 300)) : message;
    return mentions_missing_executable(message) ? 127 : -1;
}

}  // namespace liveupdate::kube
