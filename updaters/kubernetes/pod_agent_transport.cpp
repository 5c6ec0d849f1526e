#include "updaters/kubernetes/pod_agent_transport.hpp"

namespace liveupdate::kubernetes {

void PodAgentTransport::pass_stderr(Sink &sink) {
    const std::string err = stream_.take_stderr();
    if (!err.empty()) sink.stderr_bytes(err);
}

PodAgentTransport::Progress PodAgentTransport::write(std::string_view data, Clock::time_point deadline, Sink &sink) {
    const bool sent = stream_.write_stdin(data, deadline);
    pass_stderr(sink);
    if (sent) return Progress::done;
    return Clock::now() >= deadline ? Progress::timed_out : Progress::ended;
}

PodAgentTransport::Progress PodAgentTransport::read(Clock::time_point deadline, Sink &sink) {
    std::string bytes;
    const auto read = stream_.read_stdout(bytes, deadline);
    pass_stderr(sink);
    if (!bytes.empty()) sink.stdout_bytes(bytes);
    switch (read) {
    case kube::PodExecStream::Read::data: return Progress::done;
    case kube::PodExecStream::Read::timed_out: return Progress::timed_out;
    case kube::PodExecStream::Read::ended: break;
    }
    return Progress::ended;
}

bool PodAgentTransport::idle(Sink &sink) {
    pass_stderr(sink);
    return stream_.idle_and_open();
}

agent_client::AgentTransport::End PodAgentTransport::end() {
    const auto end = stream_.end();
    return {end.exit_code, end.failure};
}

}  // namespace liveupdate::kubernetes
