#include "updaters/kubernetes/exec_gate.hpp"

#include <chrono>
#include <condition_variable>

#include "common/mutex.hpp"
#include "updaters/shared/update_messages.hpp"

namespace liveupdate::kubernetes {
namespace {

constexpr std::string_view kStarted = "lu-exec-gate: started";

// Plain POSIX sh (busybox ash too); `read` takes one line, so what follows
// the go-ahead stays on stdin for the command.
const std::string kGate =
    "echo '" + std::string(kStarted) + "'; IFS= read -r go || exit 200; [ \"$go\" = go ] || exit 200; exec \"$@\"";

// The preparation's own stdin is closed: the archive that follows is tar's.
const std::string kPrepareThenUntar = "if [ $# -gt 0 ]; then \"$@\" </dev/null || exit " +
                                      std::to_string(kExitPreparationFailed) + "; fi; exec tar -C / -x -f -";

// The announcement is the gate's, not the command's: out of the log and the output's tail.
void drop_announcement(std::string &output) {
    if (const auto at = output.find(std::string(kStarted) + "\n"); at != std::string::npos)
        output.erase(at, kStarted.size() + 1);
}

}  // namespace

std::vector<std::string> gated_command(const std::vector<std::string> &argv) {
    std::vector<std::string> gated{"sh", "-c", kGate, "sh"};
    gated.insert(gated.end(), argv.begin(), argv.end());
    return gated;
}

std::vector<std::string> prepare_then_untar(const std::vector<std::string> &preparation) {
    std::vector<std::string> command{"sh", "-c", kPrepareThenUntar, "sh"};
    command.insert(command.end(), preparation.begin(), preparation.end());
    return command;
}

namespace {

// The gate's announcement, told apart from the command's lines (which go on
// to the update's log) on the exec's reading side; the feeder waits for it.
class Announcement {
public:
    explicit Announcement(const updater::UpdateLog &log) : log_(log) {}

    static void on_line(void *ctx, std::int32_t level, lu_str text) {
        auto &self = *static_cast<Announcement *>(ctx);
        const std::string_view line = abi::to_view(text);
        if (line != kStarted) return self.log_(static_cast<lu_log_level>(level), line);
        common::MutexLock lock(self.mutex_);
        self.started_ = true;
        self.said_.notify_all();
    }

    // Returns once the command said it runs; throws (from write) once it ended without a word.
    void wait(const kube::ExecWriteFn &write) {
        for (;;) {
            {
                common::MutexLock lock(mutex_);
                if (lock.wait_for(said_, std::chrono::milliseconds(100),
                                  [this]() LU_REQUIRES(mutex_) { return started_; }))
                    return;
            }
            write(nullptr, 0);  // sends nothing; ends the feeding once the command has ended
        }
    }

    bool started() {
        common::MutexLock lock(mutex_);
        return started_;
    }

private:
    const updater::UpdateLog &log_;
    common::Mutex mutex_;
    std::condition_variable said_;
    bool started_ LU_GUARDED_BY(mutex_) = false;
};

}  // namespace

GatedOutcome run_gated(const PodExecFn &exec, const kube::PodExecTarget &target, const std::vector<std::string> &argv,
                       const kube::ExecStdinFn *input, std::chrono::seconds timeout, const updater::UpdateLog &log,
                       const std::function<std::string()> &gone_reason) {
    Announcement announcement(log);
    GatedOutcome gated;
    bool asked = false;
    const kube::ExecStdinFn feeder = [&](const kube::ExecWriteFn &write) {
        announcement.wait(write);
        asked = true;
        gated.gone = gone_reason();
        if (!gated.gone.empty()) {
            write("stop\n", 5);
            return;
        }
        write("go\n", 3);
        if (input != nullptr) (*input)(write);
    };
    gated.outcome =
        exec(target, gated_command(argv), &feeder, timeout, updater::UpdateLog(&Announcement::on_line, &announcement));
    drop_announcement(gated.outcome.output);
    if (asked && !gated.gone.empty())
        gated.kind = GatedOutcome::Kind::refused;
    else if (!announcement.started() && gated.outcome.remote && !gated.outcome.timed_out &&
             (gated.outcome.exit_code == updaters::kExitCannotExec ||
              gated.outcome.exit_code == updaters::kExitNotFound))
        gated.kind = GatedOutcome::Kind::no_shell;
    return gated;
}

}  // namespace liveupdate::kubernetes
