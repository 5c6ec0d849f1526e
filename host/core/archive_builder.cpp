#include "host/core/archive_builder.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <exception>
#include <memory>
#include <span>
#include <system_error>
#include <unordered_map>

#include "common/ignore_defs.hpp"
#include "common/mutex.hpp"
#include "common/utf8.hpp"
#include "host/core/host_error.hpp"
#include "host/core/tar_tree_writer.hpp"

namespace liveupdate::host {

namespace {

constexpr const char *kBuild = "cannot build the archive";
constexpr std::size_t kFileBuffer = std::size_t{256} * 1024;

// An ArchiveWriteFn behind a buffer of its own.
class FunctionSink final : public ArchiveSink {
public:
    explicit FunctionSink(const common::ArchiveWriteFn &write) : write_(write), buffer_(kFileBuffer) {}
    std::span<char> space(std::size_t want) override { return {buffer_.data(), std::min(want, buffer_.size())}; }
    void write(const char *data, std::size_t size) override { write_(data, size); }

private:
    const common::ArchiveWriteFn &write_;
    std::vector<char> buffer_;
};

// An ArchiveWriteFn behind a small buffer inside it: for a small archive
// built whole, where FunctionSink's would cost more than the archive (a
// large allocation is an mmap and page faults, each time).
class SmallSink final : public ArchiveSink {
public:
    explicit SmallSink(const common::ArchiveWriteFn &write) : write_(write) {}
    std::span<char> space(std::size_t want) override { return {buffer_, std::min(want, sizeof buffer_)}; }
    void write(const char *data, std::size_t size) override { write_(data, size); }

private:
    const common::ArchiveWriteFn &write_;
    char buffer_[16 * 1024];
};

}  // namespace

ArchiveSummary write_archive(const std::vector<updater::CopyMapping> &copies, const common::IgnoreSet &filter,
                             const common::ArchiveWriteFn &write, const LogSinkFn &log) {
    FunctionSink sink(write);
    return write_archive_to(copies, filter, sink, log, {});
}

std::shared_ptr<const PrebuiltArchive> prebuild_archive(const std::vector<updater::CopyMapping> &copies,
                                                        const common::IgnoreSet &filter, std::size_t max_bytes) {
    auto built = std::make_shared<PrebuiltArchive>();
    bool too_large = false;
    const common::ArchiveWriteFn append = [&](const char *data, std::size_t size) {
        if (built->bytes.size() + size > max_bytes) {
            too_large = true;
            throw HostError(kBuild, "shared archive", "larger than " + std::to_string(max_bytes) + " bytes");
        }
        built->bytes.append(data, size);
    };
    const LogSinkFn log = [&](common::LogLevel level, std::string_view text) {
        built->log.emplace_back(level, std::string(text));
    };
    try {
        SmallSink sink(append);
        const EntryHooks hooks{
            .before_entry = [&](const std::string &path) { built->entries.push_back(path); },
            .file_digest = [&](const std::string &path,
                               const std::string &digest) { built->digests.emplace_back(path, digest); }};
        built->summary = write_archive_to(copies, filter, sink, log, hooks);
    } catch (const std::exception &) {
        // Too large, or not complete: each update builds its own and tells its own failure.
        return nullptr;
    }
    return too_large ? nullptr : built;
}

// The writer thread fills the buffer of the read() waiting for it, reading
// file contents into it directly: one copy from the page cache to the
// updater's buffer, as `tar -cf -` makes.
class ArchiveStream::Handoff final : public ArchiveSink {
public:
    explicit Handoff(ArchiveStream &stream) : s_(stream) {}

    std::span<char> space(std::size_t want) override {
        common::MutexLock lock(s_.mutex_);
        wait_for_room(lock);
        return {s_.read_buffer_ + s_.read_filled_, std::min(want, s_.read_capacity_ - s_.read_filled_)};
    }

    void write(const char *data, std::size_t size) override {
        common::MutexLock lock(s_.mutex_);
        while (size > 0) {
            wait_for_room(lock);
            char *at = s_.read_buffer_ + s_.read_filled_;
            const std::size_t n = std::min(size, s_.read_capacity_ - s_.read_filled_);
            if (data != at) std::memcpy(at, data, n);  // else read there by space()'s caller
            s_.read_filled_ += n;
            data += n;
            size -= n;
            if (s_.read_filled_ == s_.read_capacity_) s_.changed_.notify_all();
        }
    }

private:
    void wait_for_room(common::MutexLock &lock) LU_REQUIRES(s_.mutex_) {
        lock.wait(s_.changed_, [&]() LU_REQUIRES(s_.mutex_) {
            return s_.reader_gone_ || (s_.read_buffer_ != nullptr && s_.read_filled_ < s_.read_capacity_);
        });
        if (s_.reader_gone_) throw HostError(kBuild, "archive stream", "the updater stopped reading");
    }

    ArchiveStream &s_;
};

ArchiveStream::ArchiveStream(std::vector<updater::CopyMapping> copies, common::IgnoreSet filter, LogSinkFn log,
                             BeforeEntryFn before_entry, BeforeBytesLeaveFn before_bytes_leave,
                             FileDigestFn file_digest)
    : copies_(std::move(copies)),
      filter_(std::move(filter)),
      log_(std::move(log)),
      hooks_{std::move(before_entry), std::move(file_digest)},
      before_bytes_leave_(std::move(before_bytes_leave)) {
    start_writer();
}

ArchiveStream::ArchiveStream(std::shared_ptr<const PrebuiltArchive> prebuilt, std::vector<updater::CopyMapping> copies,
                             common::IgnoreSet filter, LogSinkFn log, BeforeEntryFn before_entry,
                             BeforeBytesLeaveFn before_bytes_leave, FileDigestFn file_digest)
    : copies_(std::move(copies)),
      filter_(std::move(filter)),
      log_(std::move(log)),
      hooks_{std::move(before_entry), std::move(file_digest)},
      before_bytes_leave_(std::move(before_bytes_leave)),
      prebuilt_(std::move(prebuilt)) {
    if (!prebuilt_) {
        start_writer();
        return;
    }
    for (const auto &[level, text] : prebuilt_->log) log_(level, text);
    summary_ = prebuilt_->summary;
    writer_done_ = true;
}

ArchiveStream::~ArchiveStream() {
    stop_writer();
    finish_writer();
}

void ArchiveStream::run_writer() {
    std::optional<std::string> failure;
    ArchiveSummary summary;
    try {
        Handoff sink(*this);
        summary = write_archive_to(copies_, filter_, sink, log_, hooks_);
    } catch (const std::exception &e) {
        failure = e.what();
    }
    common::MutexLock lock(mutex_);
    if (!error_) error_ = std::move(failure);  // a failed before_bytes_leave_ stopped it: that is the cause
    summary_ = std::move(summary);
    writer_done_ = true;
    changed_.notify_all();
}

void ArchiveStream::start_writer() {
    common::MutexLock lock(join_mutex_);
    writer_ = run_on_kept_thread([this] { run_writer(); });
}

int32_t ArchiveStream::rewind() {
    stop_writer();
    finish_writer();
    {
        common::MutexLock lock(mutex_);
        prebuilt_.reset();
        read_buffer_ = nullptr;
        read_capacity_ = read_filled_ = 0;
        reader_gone_ = writer_done_ = false;
        error_.reset();
        summary_ = {};
    }
    try {
        start_writer();
    } catch (const std::system_error &e) {
        common::MutexLock lock(mutex_);
        error_ = std::string("starting the archive again: ") + e.what();
        writer_done_ = true;
        return -1;
    }
    return 0;
}

int32_t ArchiveStream::rewind_fn(void *ctx) { return static_cast<ArchiveStream *>(ctx)->rewind(); }

void ArchiveStream::stop_writer() {
    common::MutexLock lock(mutex_);
    reader_gone_ = true;
    changed_.notify_all();
}

void ArchiveStream::finish_writer() {
    common::MutexLock lock(join_mutex_);
    if (writer_) writer_->wait();
    writer_.reset();
}

std::int64_t ArchiveStream::read_prebuilt(void *buffer, std::size_t capacity) {
    if (prebuilt_read_ == 0 && (hooks_.before_entry || hooks_.file_digest)) {
        try {
            if (hooks_.before_entry)
                for (const std::string &path : prebuilt_->entries) hooks_.before_entry(path);
            if (hooks_.file_digest)
                for (const auto &[path, digest] : prebuilt_->digests) hooks_.file_digest(path, digest);
        } catch (const std::exception &e) {
            common::MutexLock lock(mutex_);
            if (!error_) error_ = e.what();
            prebuilt_read_ = prebuilt_->bytes.size();  // nothing of it leaves
            return -1;
        }
    }
    const std::size_t n = std::min(capacity, prebuilt_->bytes.size() - prebuilt_read_);
    if (n == 0) return error() ? -1 : 0;
    if (before_bytes_leave_) {
        try {
            before_bytes_leave_();
        } catch (const std::exception &e) {
            common::MutexLock lock(mutex_);
            if (!error_) error_ = e.what();
            prebuilt_read_ = prebuilt_->bytes.size();
            return -1;
        }
    }
    std::memcpy(buffer, prebuilt_->bytes.data() + prebuilt_read_, n);
    prebuilt_read_ += n;
    return static_cast<std::int64_t>(n);
}

std::int64_t ArchiveStream::read(void *buffer, std::size_t capacity) {
    if (capacity == 0) return 0;
    if (prebuilt_) return read_prebuilt(buffer, capacity);
    common::MutexLock lock(mutex_);
    if (!writer_done_) {
        read_buffer_ = static_cast<char *>(buffer);
        read_capacity_ = capacity;
        read_filled_ = 0;
        changed_.notify_all();
        lock.wait(changed_, [&]() LU_REQUIRES(mutex_) { return read_filled_ == read_capacity_ || writer_done_; });
    }
    const std::size_t filled = read_filled_;
    read_buffer_ = nullptr;
    read_capacity_ = read_filled_ = 0;
    if (filled == 0) return error_ ? -1 : 0;
    if (before_bytes_leave_) {
        lock.unlock();
        try {
            before_bytes_leave_();
        } catch (const std::exception &e) {
            lock.lock();
            if (!error_) error_ = e.what();
            reader_gone_ = true;  // the writer stops: these bytes never leave
            changed_.notify_all();
            return -1;
        }
    }
    return static_cast<std::int64_t>(filled);
}

std::int64_t ArchiveStream::read_fn(void *ctx, void *buffer, std::size_t capacity) {
    return static_cast<ArchiveStream *>(ctx)->read(buffer, capacity);
}

std::optional<std::string> ArchiveStream::error() const {
    common::MutexLock lock(mutex_);
    return error_;
}

ArchiveSummary ArchiveStream::summary() const {
    common::MutexLock lock(mutex_);
    return summary_;
}

std::optional<std::string> ArchiveStream::finish(bool drain) {
    std::optional<std::string> failure;
    if (drain) {
        char sink[16 * 1024];  // what is left is a little padding: no large allocation (an mmap) per update
        while (read(sink, sizeof sink) > 0) {
        }
        failure = error();
    } else {
        // The writer's own failure, not the one that stopping it causes.
        failure = error();
        stop_writer();
    }
    finish_writer();
    common::MutexLock lock(mutex_);
    if (failure) return "the archive is incomplete: " + *failure;
    if (summary_.unreadable.empty()) return std::nullopt;
    constexpr std::size_t kNamed = 10;
    std::string text =
        "not every file was copied: " + std::to_string(summary_.unreadable.size()) + " path(s) could not be read: ";
    for (std::size_t i = 0; i < summary_.unreadable.size() && i < kNamed; ++i)
        text += (i > 0 ? "; " : "") + summary_.unreadable[i];
    if (summary_.unreadable.size() > kNamed)
        text += "; and " + std::to_string(summary_.unreadable.size() - kNamed) + " more";
    return text;
}

}  // namespace liveupdate::host
