#include "host/sync_back/agreement_flusher.hpp"

#include <exception>
#include <utility>

namespace liveupdate::host::sync_back {

AgreementFlusher::AgreementFlusher(std::shared_ptr<SyncedJournal> journal, FailedFn failed, FlushFn flush)
    : journal_(std::move(journal)),
      failed_(std::move(failed)),
      flush_(flush ? std::move(flush) : [](WrittenFileSystems &written) { return written.flush(); }) {}

AgreementFlusher::~AgreementFlusher() { stop(); }

void AgreementFlusher::submit(WrittenFileSystems written, std::vector<std::uint64_t> tickets) {
    if (written.empty() && tickets.empty()) return;
    {
        common::MutexLock lock(mutex_);
        if (stopping_) {
            // Never flushed: nothing of it is agreed on.
            journal_->drop_pending(tickets);
            return;
        }
        written_.take(std::move(written));
        tickets_.insert(tickets_.end(), tickets.begin(), tickets.end());
        ++submitted_;
        if (!thread_.joinable()) thread_ = std::thread([this] { run(); });
    }
    changed_.notify_all();
}

void AgreementFlusher::wait_settled() {
    common::MutexLock lock(mutex_);
    const std::uint64_t target = submitted_;
    lock.wait(changed_, [&]() LU_REQUIRES(mutex_) { return settled_ >= target; });
}

void AgreementFlusher::stop() {
    {
        common::MutexLock lock(mutex_);
        stopping_ = true;
    }
    changed_.notify_all();
    if (thread_.joinable()) thread_.join();
}

void AgreementFlusher::run() {
    for (;;) {
        WrittenFileSystems written;
        std::vector<std::uint64_t> tickets;
        std::uint64_t batches = 0;
        {
            common::MutexLock lock(mutex_);
            lock.wait(changed_, [&]() LU_REQUIRES(mutex_) { return stopping_ || settled_ < submitted_; });
            if (settled_ == submitted_) return;  // stopping, everything settled
            written.take(std::move(written_));
            tickets.swap(tickets_);
            batches = submitted_;
        }
        // The files first: an agreement line reaches the disk only after the bytes it names.
        std::string error = flush_(written);
        if (error.empty()) {
            try {
                journal_->write_pending(tickets);
            } catch (const std::exception &e) {
                error = e.what();
            }
        }
        if (!error.empty()) journal_->drop_pending(tickets);
        // Not under mutex_: the listener may take a lock held around submit().
        if (!error.empty() && failed_) failed_(error);
        {
            common::MutexLock lock(mutex_);
            settled_ = batches;
        }
        changed_.notify_all();
    }
}

}  // namespace liveupdate::host::sync_back
