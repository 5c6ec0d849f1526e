#include "agent/block_signatures.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "agent/fs_place.hpp"
#include "agent/fs_replace.hpp"
#include "common/delta/signature.hpp"

namespace liveupdate::agent {
namespace {

// The reply's fields besides the signature, with room for its message.
constexpr std::uint64_t kReplyFields = 4096;

agent_protocol::BlockSignaturesReply refused(const agent_protocol::Result &why) { return {why.error, why.message, {}}; }

}  // namespace

agent_protocol::BlockSignaturesReply block_signatures(const agent_protocol::BlockSignatures &request,
                                                      SignatureCache &cache) {
    const std::string &path = request.path;
    const auto resolved = open_place(request.root, path, false);
    if (!resolved.place)
        return refused(resolved.error == 0 ? failure(ENOENT, "reading", path) : failure(resolved, path));
    const Place &place = *resolved.place;
    const int follow = place.leaf_is_root ? 0 : O_NOFOLLOW;
    UniqueFd file(::openat(place.parent.get(), place.leaf.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | follow));
    if (file.get() < 0) return refused(failure(errno == ELOOP ? EINVAL : errno, "reading", path));
    struct stat st {};
    if (::fstat(file.get(), &st) != 0) return refused(failure(errno, "reading", path));
    if (!S_ISREG(st.st_mode)) return refused(failure(EINVAL, "reading (not a regular file)", path));
    const auto size = static_cast<std::uint64_t>(st.st_size);
    if (const auto block = delta::block_size_for(size);
        delta::kSignatureHead + (size / block + 1) * delta::kBlockBytes > agent_protocol::kMaxPayload - kReplyFields)
        return refused(failure(EFBIG, "signing (too many blocks for one frame; sent whole)", path));
    if (auto known = cache.find(path, identity_of(st))) return {0, {}, std::move(*known)};
    ::posix_fadvise(file.get(), 0, 0, POSIX_FADV_SEQUENTIAL);
    delta::SignatureBuilder builder(delta::block_size_for(size));
    std::vector<char> buffer(std::size_t{1} << 20);
    for (;;) {
        const auto got = ::read(file.get(), buffer.data(), buffer.size());
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) return refused(failure(errno, "reading", path));
        if (got == 0) break;
        builder.feed(std::string_view(buffer.data(), static_cast<std::size_t>(got)));
    }
    // Changed while read: the host sends the file whole instead.
    if (struct stat after{}; ::fstat(file.get(), &after) != 0 || !(identity_of(after) == identity_of(st)))
        return refused(failure(EAGAIN, "signing (changed meanwhile)", path));
    auto signature = delta::encode_signature(builder.finish());
    cache.remember(path, identity_of(st), signature);
    return {0, {}, std::move(signature)};
}

}  // namespace liveupdate::agent
