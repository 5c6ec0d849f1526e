#include "updaters/shared/implied_dirs_filter.hpp"
#include "common/archive_errors.hpp"

#include <archive.h>
#include <archive_entry.h>

#include <ctime>
#include <exception>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace liveupdate::updaters {
namespace {

constexpr std::size_t kChunk = std::size_t{64} * 1024;

std::string normalized(const char *path) {
    std::string_view p = path == nullptr ? std::string_view() : std::string_view(path);
    while (p.starts_with("./")) p.remove_prefix(2);
    while (p.starts_with("/")) p.remove_prefix(1);
    while (p.ends_with("/")) p.remove_suffix(1);
    return std::string(p);
}

bool is_beneath(const std::string &path, const std::string &dir) {
    return dir.empty() || (path.size() > dir.size() && path.starts_with(dir) && path[dir.size()] == '/');
}

// Callbacks cross libarchive's C frames: exceptions are parked and rethrown after.
struct Context {
    const common::ArchiveReadFn *in;
    const common::ArchiveWriteFn *out;
    std::vector<char> buffer = std::vector<char>(kChunk);
    std::exception_ptr error;
    bool input_failed = false;
};

la_ssize_t read_callback(archive *, void *user, const void **data) {
    auto *ctx = static_cast<Context *>(user);
    const auto got = (*ctx->in)(ctx->buffer.data(), ctx->buffer.size());
    if (got < 0) {
        ctx->input_failed = true;
        return -1;
    }
    *data = ctx->buffer.data();
    return static_cast<la_ssize_t>(got);
}

la_ssize_t write_callback(archive *, void *user, const void *data, size_t size) {
    auto *ctx = static_cast<Context *>(user);
    try {
        (*ctx->out)(static_cast<const char *>(data), size);
        return static_cast<la_ssize_t>(size);
    } catch (...) {
        ctx->error = std::current_exception();
        return -1;
    }
}

struct ArchiveFree {
    void operator()(archive *a) const { archive_read_free(a); }
};
struct WriterFree {
    void operator()(archive *a) const { archive_write_free(a); }
};
struct EntryFree {
    void operator()(archive_entry *e) const { archive_entry_free(e); }
};

struct PendingDir {
    std::string path;
    std::unique_ptr<archive_entry, EntryFree> entry;
    bool implied = false;
    bool written = false;
};

class Filter {
public:
    Filter(const common::ArchiveReadFn &in, const common::ArchiveWriteFn &out, std::optional<Owner> owner,
           const ArchiveEntryFn &on_entry, const std::set<std::string> &explicit_folders)
        : owner_(owner), on_entry_(on_entry), explicit_folders_(explicit_folders) {
        ctx_.in = &in;
        ctx_.out = &out;
    }

    void run() {
        reader_.reset(archive_read_new());
        writer_.reset(archive_write_new());
        if (!reader_ || !writer_) throw std::runtime_error("libarchive: out of memory");
        archive_read_support_format_tar(reader_.get());
        archive_read_support_format_empty(reader_.get());
        archive_write_set_format_pax_restricted(writer_.get());
        archive_write_set_bytes_in_last_block(writer_.get(), 1);
        check_write(archive_write_open(writer_.get(), &ctx_, nullptr, write_callback, nullptr));
        check_read(archive_read_open(reader_.get(), &ctx_, nullptr, read_callback, nullptr));

        archive_entry *entry = nullptr;
        for (;;) {
            const int rc = archive_read_next_header(reader_.get(), &entry);
            if (rc == ARCHIVE_EOF) break;
            check_read(rc);
            const std::string path = normalized(archive_entry_pathname(entry));
            settle_pending(path);
            write_explicit_folders_above(path);
            give_owner(entry);
            if (archive_entry_filetype(entry) == AE_IFDIR) {
                pending_.push_back(
                    {path, std::unique_ptr<archive_entry, EntryFree>(archive_entry_clone(entry)), false});
                continue;
            }
            check_write(archive_write_header(writer_.get(), entry));
            if (on_entry_) on_entry_(path, false);
            copy_data();
        }
        while (!pending_.empty()) pop_pending();
        check_write(archive_write_close(writer_.get()));
    }

private:
    // Marks pending directories the new path lies beneath; emits the others.
    void settle_pending(const std::string &path) {
        while (!pending_.empty() && !is_beneath(path, pending_.back().path)) pop_pending();
        for (auto &dir : pending_) dir.implied = true;
    }

    void give_owner(archive_entry *entry) const {
        if (!owner_) return;
        archive_entry_set_uid(entry, owner_->uid);
        archive_entry_set_gid(entry, owner_->gid);
        archive_entry_set_uname(entry, nullptr);
        archive_entry_set_gname(entry, nullptr);
    }

    // Each explicit folder that path lies beneath, outermost first, once.
    void write_explicit_folders_above(const std::string &path) {
        if (explicit_folders_.empty()) return;
        for (auto slash = path.find('/'); slash != std::string::npos; slash = path.find('/', slash + 1)) {
            const std::string folder = path.substr(0, slash);
            if (!explicit_folders_.contains(folder) || !explicit_written_.insert(folder).second) continue;
            write_folder(folder);
        }
    }

    void write_folder(const std::string &folder) {
        for (auto &dir : pending_) {
            if (dir.path != folder) continue;
            dir.written = true;
            check_write(archive_write_header(writer_.get(), dir.entry.get()));
            if (on_entry_) on_entry_(folder, true);
            return;
        }
        std::unique_ptr<archive_entry, EntryFree> entry(archive_entry_new());
        if (!entry) throw std::runtime_error("libarchive: out of memory");
        archive_entry_set_pathname(entry.get(), folder.c_str());
        archive_entry_set_filetype(entry.get(), AE_IFDIR);
        archive_entry_set_perm(entry.get(), 0755);
        archive_entry_set_mtime(entry.get(), std::time(nullptr), 0);
        give_owner(entry.get());
        check_write(archive_write_header(writer_.get(), entry.get()));
        if (on_entry_) on_entry_(folder, true);
    }

    void pop_pending() {
        PendingDir dir = std::move(pending_.back());
        pending_.pop_back();
        if (dir.implied || dir.written) return;
        check_write(archive_write_header(writer_.get(), dir.entry.get()));
        if (on_entry_) on_entry_(dir.path, true);
    }

    void copy_data() {
        for (;;) {
            const auto got = archive_read_data(reader_.get(), data_.data(), data_.size());
            if (got == 0) return;
            if (got < 0) check_read(static_cast<int>(got));
            if (archive_write_data(writer_.get(), data_.data(), static_cast<size_t>(got)) < 0)
                check_write(ARCHIVE_FATAL);
        }
    }

    void check_read(int rc) {
        if (rc >= ARCHIVE_WARN) return;
        if (ctx_.error) std::rethrow_exception(ctx_.error);
        if (ctx_.input_failed) throw std::runtime_error("reading the archive to copy failed");
        throw std::runtime_error("the archive to copy is not a readable tar: " +
                                 common::archive_error_text(reader_.get()));
    }

    void check_write(int rc) {
        if (rc >= ARCHIVE_WARN) return;
        if (ctx_.error) std::rethrow_exception(ctx_.error);
        throw std::runtime_error("re-writing the archive failed: " + common::archive_error_text(writer_.get()));
    }

    std::optional<Owner> owner_;
    const ArchiveEntryFn &on_entry_;
    const std::set<std::string> &explicit_folders_;
    std::set<std::string> explicit_written_;
    Context ctx_;
    std::unique_ptr<archive, ArchiveFree> reader_;
    std::unique_ptr<archive, WriterFree> writer_;
    std::vector<PendingDir> pending_;
    std::vector<char> data_ = std::vector<char>(kChunk);
};

}  // namespace

void copy_without_implied_dirs(const common::ArchiveReadFn &in, const common::ArchiveWriteFn &out,
                               std::optional<Owner> owner, const ArchiveEntryFn &on_entry,
                               const std::set<std::string> &explicit_folders) {
    Filter(in, out, owner, on_entry, explicit_folders).run();
}

}  // namespace liveupdate::updaters
