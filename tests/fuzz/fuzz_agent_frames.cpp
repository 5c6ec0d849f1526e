// libFuzzer target over the lu-agent frame decoder: any bytes from a container
// (or a host) must end in frames, a ProtocolError, or a wait for more bytes;
// the block signatures and delta instructions inside them in values or a DeltaError.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "common/agent_protocol/messages.hpp"
#include "common/delta/instructions.hpp"
#include "common/delta/signature.hpp"

namespace {

using namespace liveupdate::agent_protocol;
using liveupdate::delta::decode_signature;
using liveupdate::delta::read_instructions;

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
    case MessageType::file_begin: path_problem(decode<FileBegin>(frame).path); break;
    case MessageType::file_part:
        read_instructions(decode<FilePart>(frame).instructions,
                          {[](std::uint64_t, std::uint64_t) {}, [](std::string_view) {}});
        break;
    case MessageType::file_commit: decode<FileCommit>(frame); break;
    case MessageType::block_signatures: path_problem(decode<BlockSignatures>(frame).path); break;
    case MessageType::block_signatures_reply: decode_signature(decode<BlockSignaturesReply>(frame).signature); break;
    case MessageType::open_socket: path_problem(decode<OpenSocket>(frame).dir); break;
    case MessageType::socket_reply: decode<SocketReply>(frame); break;
    case MessageType::socket_hello: decode<SocketHello>(frame); break;
    case MessageType::socket_welcome: decode<SocketWelcome>(frame); break;
    case MessageType::restart_process: decode<RestartProcess>(frame); break;
    case MessageType::watch_changes: path_problem(decode<WatchChanges>(frame).root); break;
    case MessageType::expect_content: path_problem(decode<ExpectContent>(frame).path); break;
    case MessageType::container_change: decode<ContainerChange>(frame); break;
    case MessageType::container_change_part: decode<ContainerChangePart>(frame); break;
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
    } catch (const liveupdate::delta::DeltaError &) {
        // Likewise: the agent ends the session, the host counts it as broken.
    }
    return 0;
}
