// libFuzzer target over what a pod's exec stream takes from the API server:
// frames sorted by their channel byte, then the Status of channel 3 read
// for an exit code. Any bytes must end in an exit code (or -1 with a
// failure), never a crash. The input is a series of frames, each led by
// one byte giving its length.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "common/kube/exec_frames.hpp"
#include "common/kube/pod_exec.hpp"

using namespace liveupdate::kube;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
    std::string_view bytes(reinterpret_cast<const char *>(data), size);
    ExecChannels channels;
    std::size_t payload = 0;
    while (!bytes.empty()) {
        const std::size_t length = std::min<std::size_t>(static_cast<unsigned char>(bytes[0]), bytes.size() - 1);
        const std::string_view frame = bytes.substr(1, length);
        append_exec_frame(frame, channels);
        if (!frame.empty()) payload += frame.size() - 1;
        bytes.remove_prefix(1 + length);
    }
    // A frame's payload goes to one channel or none: nothing is made up.
    if (channels.out.size() + channels.err.size() + channels.status.size() > payload) std::abort();
    std::string failure;
    (void)exit_code_of_status(channels.status, failure);
    return 0;
}
