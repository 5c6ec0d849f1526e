#include "common/kube/exec_frames.hpp"

#include <boost/json.hpp>

#include <exception>

#include "common/json_fields.hpp"

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
    std::string message;
    try {
        const json::value v = common::parse_limited(status_json);
        if (common::string_field(v, {"status"}) == "Success") return 0;
        message = common::string_field(v, {"message"});
        const json::array *causes = common::array_field(v, {"details", "causes"});
        for (std::size_t i = 0; causes != nullptr && i < causes->size(); ++i) {
            const json::object &c = common::expect_object((*causes)[i], common::index("details.causes", i));
            if (common::string_field(c, {"reason"}) != "ExitCode") continue;
            try {
                return std::stoi(common::string_field(c, {"message"}));
            } catch (const std::exception &) {
                break;  // not a number: the message below says what happened
            }
        }
    } catch (const common::DecodeError &e) {
        failure = "unreadable exec status (" + std::string(e.what()) + "): " + std::string(status_json.substr(0, 200));
        return -1;
    }
    failure = message.empty() ? std::string(status_json.substr(0, 300)) : message;
    return mentions_missing_executable(message) ? 127 : -1;
}

}  // namespace liveupdate::kube
