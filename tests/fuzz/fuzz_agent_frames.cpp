// libFuzzer target over the lu-agent frame decoder: any bytes from a container
// (or a host) must end in frames, a ProtocolError, or a wait for more bytes.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "common/agent_protocol/messages.hpp"

namespace {

using namespace liveupdate::agent_protocol;

void decode_as_its_type(const Frame &frame) {
    switch (frame.type) {
    case MessageType::hello: decode<Hello>(frame); break;
    case MessageType::write_file: path_problem(decode<WriteFile>(frame).path); break;
    case MessageType::make_dir: path_problem(decode<MakeDir>(frame).path); break;
    case MessageType::symlink: path_problem(decode<Symlink>(frame).path); break;
    case MessageType::remove: path_problem(decode<Remove>(frame).path); break;
    case MessageType::run: decode<Run>(frame); break;
    case MessageType::digest: decode<Digest>(frame); break;
    case MessageType::hello_reply: decode<HelloReply>(frame); break;
    case MessageType::result: decode<Result>(frame); break;
    case MessageType::output: decode<Output>(frame); break;
    case MessageType::exit_status: decode<ExitStatus>(frame); break;
    case MessageType::digest_entry: decode<DigestEntry>(frame); break;
    case MessageType::fatal: decode<Fatal>(frame); break;
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
    const std::string_view bytes(reinterpret_cast<const char *>(data), size);
    // Fed in two pieces, cut where the first byte says, as a socket would.
    const std::size_t cut = size == 0 ? 0 : data[0] % (size + 1);
    FrameDecoder decoder;
    try {
        decoder.feed(bytes.substr(0, cut));
        while (auto frame = decoder.next()) decode_as_its_type(*frame);
        decoder.feed(bytes.substr(cut));
        while (auto frame = decoder.next()) decode_as_its_type(*frame);
    } catch (const ProtocolError &) {
        // The session would end here with this message: the expected outcome for bad input.
    }
    return 0;
}
