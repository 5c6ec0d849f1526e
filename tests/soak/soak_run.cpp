#include "tests/soak/soak_run.hpp"

#include <unistd.h>

#include <chrono>
#include <iostream>
#include <stdexcept>
#include <thread>
#include <vector>

#include "tests/integration/up_daemon.hpp"
#include "tests/soak/faults.hpp"
#include "tests/soak/soak_container.hpp"
#include "tests/soak/source_ops.hpp"
#include "tests/soak/tree_check.hpp"

namespace lu_soak {

namespace fs = std::filesystem;
namespace json = boost::json;

namespace {

fs::path make_temp_dir() {
    char tmpl[] = "/tmp/lu-soak-XXXXXX";
    if (::mkdtemp(tmpl) == nullptr) throw std::runtime_error("soak: cannot create a folder in /tmp");
    return tmpl;
}

std::string project_for(std::uint64_t seed) {
    static int counter = 0;
    return "lu-soak-" + std::to_string(::getpid()) + "-" + std::to_string(counter++) + "-" +
           std::to_string(seed % 100000);
}

// Only the app writes in the sync-back folder, but for the files a local save
// raced: a conflict of any other file is a bug, and so is one of a raced file
// whose local side is not the developer's save any more.
std::string unexpected_conflicts(const json::value &status, const SoakContainer &container, const fs::path &src) {
    if (!status.is_object()) return "";
    const auto *conflicts = status.as_object().if_contains("syncBackConflicts");
    if (conflicts == nullptr || !conflicts->is_array()) return "";
    json::array unexpected;
    for (const json::value &c : conflicts->as_array()) {
        const auto *path = c.is_object() ? c.as_object().if_contains("path") : nullptr;
        const std::string where = path != nullptr && path->is_string() ? std::string(path->as_string()) : "";
        const std::string prefix = std::string(kSyncTarget) + "/";
        const std::string rel = where.starts_with(prefix) ? where.substr(prefix.size()) : "";
        const auto race = container.raced().find(rel);
        std::error_code ec;
        const bool local_is_the_save = race != container.raced().end() &&
                                       fs::is_regular_file(fs::symlink_status(src / rel, ec)) &&
                                       up_it::read_file(src / rel) == race->second.local;
        if (!local_is_the_save) unexpected.push_back(c);
    }
    return unexpected.empty() ? "" : json::serialize(unexpected);
}

std::string failed_state(const json::value &status) {
    if (!status.is_object()) return "the daemon does not answer";
    const auto *failed = status.as_object().if_contains("failed");
    if (failed == nullptr || !failed->is_object()) return "";
    const auto text = [&](const char *key) {
        const auto *v = failed->as_object().if_contains(key);
        return v != nullptr && v->is_string() ? std::string(v->as_string()) : std::string();
    };
    return text("reason") + ": " + text("message");
}

class SoakRun {
public:
    explicit SoakRun(const SoakOptions &options)
        : options_(options),
          random_(options.seed),
          container_(project_for(options.seed)),
          dir_(make_temp_dir()),
          daemon_(dir_, options.binaries, container_.project()),
          source_(daemon_.src(), options.without) {
        report_.seed = options.seed;
    }
    ~SoakRun() {
        daemon_.stop();
        std::error_code ec;
        // A broken run keeps its folder for its log and tree, not for the plugin copies.
        if (report_.passed() && std::getenv("LU_KEEP_TEST_DIRS") == nullptr)
            fs::remove_all(dir_, ec);
        else
            fs::remove_all(dir_ / "plugins", ec);
    }

    SoakReport run() {
        try {
            for (int i = 0; i < 6; ++i) source_.random_op(random_);
            daemon_.start();
            if (!check("the initial sync")) return report_;
            std::size_t since_fault = 0;
            while (report_.ops < options_.ops) {
                step();
                ++since_fault;
                if (since_fault == options_.faults_every) {
                    fault();
                    since_fault = 0;
                }
                // Halfway to the next fault (right after it when there is one per operation).
                const bool settled = since_fault == options_.faults_every / 2;
                if ((settled || report_.ops >= options_.ops) && !check("check " + std::to_string(report_.checks)))
                    return report_;
            }
        } catch (const std::exception &e) {
            fail(std::string("the soak itself failed: ") + e.what() + "\n");
        }
        return report_;
    }

private:
    void note(const std::string &event) {
        events_.push_back(event);
        if (options_.verbose) std::cout << "  " << event << std::endl;
    }

    // One source operation, sometimes an app write, sometimes a pause of a few ms.
    void step() {
        ++report_.ops;
        note("op " + std::to_string(report_.ops) + ": " + source_.random_op(random_));
        if (report_.checks > 0 && !options_.without.contains("app-write") && random_.percent(15)) {
            ++report_.app_writes;
            note(container_.app_write(random_));
        }
        if (report_.checks > 0 && !options_.without.contains("sync-back") && random_.percent(15)) {
            ++report_.back_writes;
            note(container_.app_sync_back_write(random_));
        }
        if (report_.checks > 0 && !options_.without.contains("sync-back-race") && !container_.back_files().empty() &&
            random_.percent(4)) {
            ++report_.races;
            note(container_.app_races_a_local_save(random_, daemon_.src()));
        }
        if (random_.percent(30)) std::this_thread::sleep_for(std::chrono::milliseconds(random_.between(1, 40)));
    }

    void fault() {
        std::vector<Fault> kinds;
        for (const Fault f : kAllFaults)
            if (!options_.without.contains(fault_name(f))) kinds.push_back(f);
        if (kinds.empty()) return;
        const Fault kind = random_.pick(kinds);
        ++report_.faults[fault_name(kind)];
        note("fault " + fault_name(kind) + " after op " + std::to_string(report_.ops));
        const std::string what = inject(kind, {container_, daemon_}, random_, [&](std::size_t ops) {
            for (std::size_t i = 0; i < ops; ++i) step();
        });
        note("fault " + fault_name(kind) + " over: " + what);
    }

    // Waits for the marker, then for equal trees; false (and the report) when
    // either does not come or the LiveUpdate is failed.
    bool check(const std::string &label) {
        const std::string marker =
            "check " + std::to_string(report_.checks) + " of seed " + std::to_string(options_.seed);
        source_.write(kMarkerFile, marker);
        const std::string marker_path = container_.host_path(std::string(kSyncTarget) + "/" + kMarkerFile);
        const bool arrived =
            up_it::wait_until([&] { return up_it::read_file(marker_path) == marker; }, std::chrono::seconds(30));
        std::vector<Divergence> divergences;
        std::string unreadable;
        up_it::wait_until(
            [&] {
                try {
                    divergences = check_trees(daemon_.src(), container_);
                    unreadable.clear();
                } catch (const std::exception &e) {
                    unreadable = e.what();  // a file replaced while it was read: look again
                }
                return unreadable.empty() && divergences.empty();
            },
            std::chrono::seconds(arrived ? 30 : 1));
        const json::value status = daemon_.status();
        const std::string failed = failed_state(status);
        const std::string conflicts = unexpected_conflicts(status, container_, daemon_.src());
        ++report_.checks;
        if (arrived && divergences.empty() && unreadable.empty() && failed.empty() && conflicts.empty()) {
            note("check " + std::to_string(report_.checks - 1) + " held");
            events_.clear();
            return true;
        }
        std::string what = label + " (after op " + std::to_string(report_.ops) + ") broke:\n";
        if (!arrived)
            what += "  the LiveUpdate is stuck: " + std::string(kMarkerFile) + " did not reach the container\n";
        if (!failed.empty()) what += "  the LiveUpdate is failed: " + failed + "\n";
        if (!conflicts.empty()) what += "  sync back conflicts where only the app wrote: " + conflicts + "\n";
        if (!unreadable.empty()) what += "  cannot compare: " + unreadable + "\n";
        fail(what + describe(divergences));
        return false;
    }

    void fail(const std::string &what) {
        std::string text = "fault soak seed " + std::to_string(options_.seed) + ": " + what;
        text += "what happened since the check before:\n";
        for (const auto &e : events_) text += "  " + e + "\n";
        text += "status: " + json::serialize(daemon_.status()) + "\n";
        text +=
            "daemon log (last 60 lines, all of it in " + (dir_ / "daemon.log").string() + "):\n" + daemon_.log_tail(60);
        text += "replay: " + replay_command(options_) + "\n";
        report_.failure = text;
    }

    const SoakOptions &options_;
    Random random_;
    SoakContainer container_;
    fs::path dir_;
    SoakDaemon daemon_;
    SourceOps source_;
    SoakReport report_;
    std::vector<std::string> events_;  // since the last check that held
};

}  // namespace

SoakReport run_soak(const SoakOptions &options) {
    std::cout << "fault soak: seed " << options.seed << ", " << options.ops << " operations, a fault every "
              << options.faults_every << std::endl;
    return SoakRun(options).run();
}

std::string replay_command(const SoakOptions &options) {
    std::string without;
    for (const auto &name : options.without) without += (without.empty() ? " --without " : ",") + name;
    return options.replay_program + " --seed " + std::to_string(options.seed) + " --ops " +
           std::to_string(options.ops) + " --faults-every " + std::to_string(options.faults_every) + " --seeds 1" +
           without;
}

}  // namespace lu_soak
