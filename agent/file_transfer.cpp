#include "agent/file_transfer.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "agent/content_guard.hpp"
#include "agent/fs_replace.hpp"
#include "common/delta/instructions.hpp"

namespace liveupdate::agent {
namespace {

// Copies from the base go in writes of this much: 1 MiB writes into the page
// cache cost about twice the CPU (measured, a 1-byte delta of 200 MiB: 180-320
// ms against 110-130 ms).
constexpr std::size_t kCopyBuffer = std::size_t{256} * 1024;

std::string request_name(agent_protocol::MessageType type) {
    return std::string(agent_protocol::type_name(type)) + " request: ";
}

}  // namespace

FileTransfer::~FileTransfer() { abandon(); }

void FileTransfer::abandon() {
    if (open_ && !open_->temporary.empty() && open_->place)
        ::unlinkat(open_->place->parent.get(), open_->temporary.c_str(), 0);
    open_.reset();
}

void FileTransfer::begin(const agent_protocol::FileBegin &request, const agent_protocol::ExpectContent *expected) {
    if (open_)
        throw agent_protocol::ProtocolError(request_name(request.type) + request.path + " begun while " +
                                            open_->request.path + " is open");
    open_.emplace();
    open_->request = request;
    if (expected != nullptr) open_->expected = *expected;
    if (request.size >= agent_protocol::kDeltaMinSize) open_->signer.emplace(delta::block_size_for(request.size));
    open(*open_);
}

void FileTransfer::open(FileInProgress &file) {
    const std::string &path = file.request.path;
    auto resolved = open_place(file.request.root, path, true);
    if (!resolved.place) {
        file.failed = failure(resolved, path);
        return;
    }
    file.place = std::move(resolved.place);
    const int dir = file.place->parent.get();
    // A transfer cut short by a killed agent left its temporary file here.
    remove_stale_temporaries(dir);
    if (file.request.from_base != 0) {
        const int follow = file.place->leaf_is_root ? 0 : O_NOFOLLOW;
        file.base = UniqueFd(::openat(dir, file.place->leaf.c_str(), O_RDONLY | O_CLOEXEC | follow));
        struct stat st {};
        if (file.base.get() < 0 || ::fstat(file.base.get(), &st) != 0) {
            file.failed = failure(errno, "opening the base of", path);
            return;
        }
        if (!S_ISREG(st.st_mode)) {
            file.failed = failure(EINVAL, "opening the base (not a regular file) of", path);
            return;
        }
        file.base_size = static_cast<std::uint64_t>(st.st_size);
    }
    const std::string temporary = temporary_name();
    file.file = UniqueFd(::openat(dir, temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
    if (file.file.get() < 0) {
        file.failed = failure(errno, "writing a temporary file for", path);
        return;
    }
    file.temporary = temporary;
}

void FileTransfer::append(FileInProgress &file, std::string_view bytes) {
    if (const int error = write_all(file.file.get(), bytes); error != 0) {
        file.failed = failure(error, "writing a temporary file for", file.request.path);
        return;
    }
    file.hash.update(bytes);
    if (file.signer) file.signer->feed(bytes);
    file.written += bytes.size();
}

void FileTransfer::copy_from_base(FileInProgress &file, std::uint64_t offset, std::uint64_t length) {
    const std::string &path = file.request.path;
    if (file.base.get() < 0 || offset > file.base_size || length > file.base_size - offset) {
        file.failed = failure(EINVAL, "copying beyond the base of", path);
        return;
    }
    if (buffer_.size() < kCopyBuffer) buffer_.resize(kCopyBuffer);
    while (length > 0 && !file.failed) {
        const auto want = static_cast<std::size_t>(std::min<std::uint64_t>(length, buffer_.size()));
        const auto got = ::pread(file.base.get(), buffer_.data(), want, static_cast<off_t>(offset));
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) {
            // Shorter than when it was opened: changed under us.
            file.failed = failure(got < 0 ? errno : EIO, "reading the base of", path);
            return;
        }
        append(file, std::string_view(buffer_.data(), static_cast<std::size_t>(got)));
        offset += static_cast<std::uint64_t>(got);
        length -= static_cast<std::uint64_t>(got);
    }
}

void FileTransfer::part(const agent_protocol::FilePart &request) {
    if (!open_) throw agent_protocol::ProtocolError(request_name(request.type) + "no file begun");
    FileInProgress &file = *open_;
    if (file.failed) return;
    try {
        delta::read_instructions(request.instructions,
                                 delta::InstructionHandlers{[&](std::uint64_t offset, std::uint64_t length) {
                                                                if (!file.failed) copy_from_base(file, offset, length);
                                                            },
                                                            [&](std::string_view bytes) {
                                                                if (!file.failed) append(file, bytes);
                                                            }});
    } catch (const delta::DeltaError &e) {
        throw agent_protocol::ProtocolError(request_name(request.type) + file.request.path + ": " + e.what());
    }
}

agent_protocol::Result FileTransfer::commit(const agent_protocol::FileCommit &request) {
    if (!open_) throw agent_protocol::ProtocolError(request_name(request.type) + "no file begun");
    FileInProgress &file = *open_;
    const std::string path = file.request.path;
    const auto digest = file.hash.digest();
    if (!file.failed &&
        (file.written != request.size || digest.low != request.hash_low || digest.high != request.hash_high))
        file.failed = agent_protocol::Result{EIO, "building " + path + ": " + std::to_string(file.written) +
                                                      " bytes whose hash is not the " + std::to_string(request.size) +
                                                      " bytes the host sent (the base changed meanwhile?)"};
    if (!file.failed)
        if (const int error =
                set_mode_and_owner(file.file.get(), file.request.mode, file.request.uid, file.request.gid);
            error != 0)
            file.failed = failure(error, "setting the mode and owner of", path);
    if (!file.failed && ::close(file.file.release()) != 0)
        file.failed = failure(errno, "writing a temporary file for", path);
    // Compared last, so that only the rename's microseconds are left for a change to be replaced.
    if (!file.failed && file.expected)
        if (const std::string found =
                unexpected_content(*file.place, *file.expected,
                                   [&file] { return content_hash_at(file.place->parent.get(), file.temporary); });
            !found.empty())
            file.failed = not_as_expected(found);
    if (!file.failed) {
        const int error = replace_large_with(*file.place, file.temporary);
        file.temporary.clear();  // in place, or removed
        if (error != 0) file.failed = failure(error, "writing", path);
    }
    if (!file.failed) remember_signatures(file);
    agent_protocol::Result result = file.failed.value_or(agent_protocol::Result{});
    abandon();
    return result;
}

void FileTransfer::remember_signatures(FileInProgress &file) {
    if (!file.signer || file.written != file.request.size) return;
    struct stat st {};
    if (::fstatat(file.place->parent.get(), file.place->leaf.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 ||
        !S_ISREG(st.st_mode))
        return;
    signatures_.remember(file.request.path, identity_of(st), delta::encode_signature(file.signer->finish()));
}

}  // namespace liveupdate::agent
