#include "updaters/shared/implied_dirs_filter.hpp"

#include <archive.h>
#include <archive_entry.h>

#include <ctime>
#include <exception>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "common/archive_errors.hpp"
#include "common/tar_reader.hpp"

namespace liveupdate::updaters {
namespace {

constexpr std::size_t kChunk = std::size_t{64} * 1024;

bool is_beneath(const std::string &path, const std::string &dir) {
    return dir.empty() || (path.size() > dir.size() && path.starts_with(dir) && path[dir.size()] == '/');
}

// Callbacks cross libarchive's C frames: exceptions are parked and rethrown after.
struct Context {
    const common::ArchiveWriteFn *out;
    std::exception_ptr error;
};

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
        : in_(in), owner_(owner), on_entry_(on_entry), explicit_folders_(explicit_folders) {
        ctx_.out = &out;
    }

    void run() {
        writer_.reset(archive_write_new());
        if (!writer_) throw std::runtime_error("libarchive: out of memory");
        archive_write_set_format_pax_restricted(writer_.get());
        archive_write_set_bytes_in_last_block(writer_.get(), 1);
        check_write(archive_write_open(writer_.get(), &ctx_, nullptr, write_callback, nullptr));
        try {
            reader_.emplace(in_);
            copy_entries();
        } catch (const common::TarReadError &e) {
            if (ctx_.error) std::rethrow_exception(ctx_.error);
            if (reader_ && reader_->source_failed()) throw std::runtime_error("reading the archive to copy failed");
            throw std::runtime_error(std::string("the archive to copy is not a readable tar: ") + e.what());
        }
        while (!pending_.empty()) pop_pending();
        check_write(archive_write_close(writer_.get()));
    }

private:
    void copy_entries() {
        while (archive_entry *entry = reader_->next()) {
            const std::string path = common::tar_entry_name(archive_entry_pathname(entry));
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
    }

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
            const std::size_t got = reader_->read_data(data_.data(), data_.size());
            if (got == 0) return;
            if (archive_write_data(writer_.get(), data_.data(), got) < 0) check_write(ARCHIVE_FATAL);
        }
    }

    void check_write(int rc) {
        if (rc >= ARCHIVE_WARN) return;
        if (ctx_.error) std::rethrow_exception(ctx_.error);
        throw std::runtime_error("re-writing the archive failed: " + common::archive_error_text(writer_.get()));
    }

    const common::ArchiveReadFn &in_;
    std::optional<Owner> owner_;
    const ArchiveEntryFn &on_entry_;
    const std::set<std::string> &explicit_folders_;
    std::set<std::string> explicit_written_;
    Context ctx_;
    std::optional<common::TarReader> reader_;
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
