#include "host/sync_back/local_sync_back.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>

#include "common/paths.hpp"
#include "common/utf8.hpp"
#include "host/sync_back/beneath_files.hpp"

namespace liveupdate::host::sync_back {
namespace {

using Kind = SyncBackEvent::Kind;
using rules::Action;
using rules::PathState;

// A local container's folder: its "/" is container_root.
class FolderFiles final : public ContainerFiles {
public:
    FolderFiles(std::string container_root, const std::string &container_path)
        : container_root_(std::move(container_root)), sync_root_name_(common::clean_path(container_path).substr(1)) {}

    BeneathFile open(const std::string &name, std::uint64_t max_bytes) override {
        return open_beneath(container_root_, sync_root_name_.empty() ? name : sync_root_name_ + "/" + name, max_bytes);
    }
    // Never a mass deletion: the container's sync root must be there, beneath
    // its root without a symlink, and hold something.
    rules::ContainerRoot sync_root() override { return folder_beneath(container_root_, sync_root_name_); }

private:
    std::string container_root_;
    std::string sync_root_name_;  // containerPath relative to the container root ("" for "/")
};

}  // namespace

LocalSyncBack::LocalSyncBack(const rules::SyncBackMapping &mapping, const std::string &container_root,
                             std::shared_ptr<SyncedJournal> journal, rules::Limits limits,
                             std::shared_ptr<CameBack> came_back)
    : LocalSyncBack(mapping, std::make_shared<FolderFiles>(container_root, mapping.container_path()),
                    std::move(journal), limits, std::move(came_back)) {}

LocalSyncBack::LocalSyncBack(rules::SyncBackMapping mapping, std::shared_ptr<ContainerFiles> files,
                             std::shared_ptr<SyncedJournal> journal, rules::Limits limits,
                             std::shared_ptr<CameBack> came_back)
    : mapping_(std::move(mapping)),
      files_(std::move(files)),
      journal_(std::move(journal)),
      limits_(limits),
      came_back_(std::move(came_back)),
      budget_(limits.max_files_per_second, limits.max_burst_files),
      flusher_(std::make_unique<AgreementFlusher>(journal_, nullptr)) {}

LocalSyncBack::~LocalSyncBack() {
    if (!flusher_) return;  // moved from
    end_batch();
    flusher_->stop();
}

void LocalSyncBack::end_batch() {
    flusher_->submit(std::move(written_), std::move(tickets_));
    written_.clear();
    tickets_.clear();
}

void LocalSyncBack::set_flusher(std::function<void(const SyncBackEvent &failed)> report,
                                AgreementFlusher::FlushFn flush) {
    auto failed = [report = std::move(report)](const std::string &why) {
        if (!report) return;
        SyncBackEvent event;
        event.kind = Kind::refused;
        event.message = "what came back is not agreed on: it is not known to be on the local disk (" + why +
                        "); judged again at its next change or restart";
        report(event);
    };
    flusher_ = std::make_unique<AgreementFlusher>(journal_, std::move(failed), std::move(flush));
}

void LocalSyncBack::agree_after_flush(const std::string &container_path, const rules::Agreed &digest) {
    if (journal_->agreed(container_path) == digest) return;  // already agreed, or pending
    tickets_.push_back(journal_->agree_pending(container_path, digest));
}

SyncBackEvent LocalSyncBack::on_container_change(const std::string &container_file, std::int64_t now_ms,
                                                 const std::optional<rules::Agreed> &held_from) {
    SyncBackEvent event;
    event.container_path = container_file;
    const std::optional<std::string> name = mapping_.wanted(container_file);
    if (!name) return event;
    // The name as the container gave it, before any cleaning hid a "..". A
    // containerPath ending in "/" (such as "/" itself) has its separator already.
    const std::string &root = mapping_.container_path();
    const std::size_t cut = root.size() + (root.ends_with('/') ? 0 : 1);
    const std::string raw = container_file.substr(std::min(container_file.size(), cut));
    if (std::string why = rules::name_refusal(raw, limits_); !why.empty()) {
        event.kind = Kind::refused;
        event.message = common::printable_path(container_file) + ": not brought back: " + why;
        return event;
    }
    if (!budget_.take(now_ms)) {
        event.kind = Kind::deferred;
        return event;
    }
    event = judged(common::clean_path(container_file), *name, held_from);
    if (event.kind == Kind::in_flight) return event;  // not judged yet: an open conflict stays
    // A full local disk is said once, then tried again quietly until there is room.
    if (!event.again)
        waiting_for_room_.erase(event.container_path);
    else if (!waiting_for_room_.insert(event.container_path).second)
        event.kind = Kind::deferred;
    if (event.kind == Kind::conflict) {
        event.opens_conflict = !conflicts_.contains(event.container_path);
        conflicts_[event.container_path] = event;
    } else {
        conflicts_.erase(event.container_path);
    }
    return event;
}

SyncBackEvent LocalSyncBack::judged(const std::string &container_path, const std::string &name,
                                    const std::optional<rules::Agreed> &held_from, bool again) {
    SyncBackEvent event;
    event.container_path = container_path;
    event.local_file = mapping_.local_file(name);
    const auto refuse = [&](std::string why) {
        event.kind = Kind::refused;
        event.message = common::printable_path(container_path) + ": not brought back: " + std::move(why);
        return event;
    };
    BeneathFile container = files_->open(name, limits_.max_file_bytes);
    if (!container.error.empty()) {
        if (container.state.kind == PathState::Kind::file) return refuse(rules::size_refusal(container.size, limits_));
        return refuse(container.error);
    }
    BeneathFile local = open_beneath(mapping_.local_path(), name, UINT64_MAX);
    if (!local.error.empty()) return refuse(local.error);
    // Folders are not synced as such: they come with the files beneath them.
    if (container.folder || (container.state.kind == PathState::Kind::absent && local.folder)) {
        event.kind = Kind::nothing;
        return event;
    }
    // Being synced forward: the container's copy is the forward sync's until
    // its update ends; the report is judged then (the agent sends it once).
    if (auto before = journal_->agreed_before_forwarding(container_path)) {
        event.kind = Kind::in_flight;
        event.agreed_before = std::move(*before);
        return event;
    }
    // Held while an update carried the path, and still what both agreed on
    // before it: a look taken before the forward write, not the app's change.
    if (held_from && rules::holds_agreed(*held_from, container.state)) {
        event.kind = Kind::nothing;
        return event;
    }
    // A look at a forward write taken while its update was in flight, reported after it ended.
    if (container.state.kind == PathState::Kind::file &&
        journal_->is_late_forward(container_path, container.state.digest)) {
        event.kind = Kind::nothing;
        return event;
    }
    const rules::Agreed agreed = journal_->agreed(container_path);
    const rules::Decision decision =
        rules::decide(agreed, local.state, container.state, rules::deletes_allowed(files_->sync_root()));
    switch (decision.action) {
    case Action::nothing: event.kind = Kind::nothing; break;
    case Action::write_local: {
        if (came_back_) came_back_->expect_written(event.local_file, container.state.digest, mapping_.local_path());
        WriteResult written = container.bytes
                                  ? write_beneath(mapping_.local_path(), name, *container.bytes, container.mode,
                                                  container.state.digest, local.stamp, &written_, local.parent.get())
                                  : write_beneath(mapping_.local_path(), name, container.fd.get(), container.mode,
                                                  container.state.digest, local.stamp, &written_, local.parent.get());
        if (came_back_) came_back_->ended(event.local_file, written.error.empty());
        if (!written.error.empty()) {
            // A developer's save came while it was copied: judged again against it (a conflict, mostly).
            if (written.local_changed && !again) return judged(container_path, name, held_from, true);
            SyncBackEvent refused = refuse(std::move(written.error));
            refused.again = written.no_room;
            if (refused.again) refused.message += "; tried again until there is room";
            return refused;
        }
        agree_after_flush(container_path, container.state.digest);
        event.kind = Kind::written;
        break;
    }
    case Action::delete_local: {
        if (came_back_) came_back_->expect_deleted(event.local_file);
        std::string error = delete_beneath(mapping_.local_path(), name, *agreed, &written_);
        if (came_back_) came_back_->ended(event.local_file, error.empty());
        if (!error.empty()) return refuse(std::move(error));
        agree_after_flush(container_path, std::nullopt);
        event.kind = Kind::deleted;
        break;
    }
    case Action::agree:
        // Both sides still hold the agreed content and the container other
        // permission bits (an app's chmod after its write): they come back
        // (never set-id) on the file opened beneath localPath, content untouched.
        if (agreed && container.state.kind == PathState::Kind::file && container.state.digest == *agreed &&
            local.fd.get() >= 0 && (local.mode & 0777) != (container.mode & 0777)) {
            if (came_back_) came_back_->expect_written(event.local_file, local.state.digest, mapping_.local_path());
            const bool set = ::fchmod(local.fd.get(), container.mode & 0777) == 0;
            const int code = errno;
            if (came_back_) came_back_->ended(event.local_file, set);
            if (!set) return refuse(std::string("its mode cannot be set: ") + std::strerror(code));
            event.kind = Kind::written;
            break;
        }
        agree_after_flush(container_path, container.state.kind == PathState::Kind::file
                                              ? rules::Agreed(container.state.digest)
                                              : std::nullopt);
        event.kind = Kind::agreed;
        break;
    case Action::conflict:
        event.kind = Kind::conflict;
        event.conflict = decision.conflict;
        event.message = common::printable_path(container_path) + " and " + common::printable_path(event.local_file) +
                        ": conflict: " + std::string(rules::conflict_name(decision.conflict)) +
                        "; neither side is overwritten until one is edited to agree";
        break;
    case Action::hold_deletes: event.kind = Kind::held; break;
    }
    return event;
}

}  // namespace liveupdate::host::sync_back
