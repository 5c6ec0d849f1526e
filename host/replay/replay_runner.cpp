#include "host/replay/replay_runner.hpp"

#include <stdlib.h>

#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>

#include "common/json_fields.hpp"
#include "host/core/executor.hpp"
#include "host/core/host_error.hpp"
#include "host/core/log.hpp"
#include "host/core/object_store.hpp"
#include "host/core/plugin_message.hpp"
#include "host/core/plugin_slot.hpp"
#include "host/core/reconcile_driver.hpp"
#include "host/core/updater.hpp"
#include "host/core/updater_registry.hpp"
#include "host/replay/partial_match.hpp"
#include "host/replay/scenario.hpp"
#include "liveupdate/ext/record.h"
#include "liveupdate/liveupdate.hpp"

namespace liveupdate::host::replay {
namespace fs = std::filesystem;
namespace json = boost::json;

namespace {

// A fresh, empty folder for ${ROOT}, removed with everything in it afterwards.
class TempRoot {
public:
    TempRoot() {
        std::string pattern = (fs::temp_directory_path() / "lu-replay-XXXXXX").string();
        if (::mkdtemp(pattern.data()) == nullptr) {
            throw HostError("cannot create ${ROOT}", pattern, std::strerror(errno));
        }
        // Canonical, so that paths the plugin resolves compare equal to the scenario's.
        path_ = fs::canonical(pattern);
    }
    TempRoot(const TempRoot &) = delete;
    TempRoot &operator=(const TempRoot &) = delete;
    ~TempRoot() {
        std::error_code ignored_because_best_effort;
        fs::remove_all(path_, ignored_because_best_effort);
    }
    const fs::path &path() const { return path_; }

private:
    fs::path path_;
};

std::string read_file(const std::string &file) {
    std::ifstream in(file, std::ios::binary);
    if (!in) throw ScenarioError("cannot read the file: " + std::string(std::strerror(errno)));
    std::ostringstream text;
    text << in.rdbuf();
    if (in.bad()) throw ScenarioError("cannot read the file");
    return text.str();
}

void write_file(const fs::path &path, const std::string &content) {
    fs::create_directories(path.parent_path());
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << content;
    if (!out) throw HostError("cannot write", path.string(), std::strerror(errno));
}

// The record updater and its replay extension.
class RecordUpdater {
public:
    RecordUpdater(const fs::path &file, std::shared_ptr<UpdaterHostServices> services)
        : updater_(std::make_shared<Updater>(UpdaterPlugin::load(file), std::move(services))) {
        extension_ = static_cast<const lu_record_extension *>(updater_->extension(LU_RECORD_EXTENSION_ID));
        if (extension_ == nullptr || extension_->struct_size < sizeof(lu_record_extension)) {
            throw PluginLoadError("cannot use the record updater", file.string(),
                                  std::string("it lacks the extension ") + LU_RECORD_EXTENSION_ID);
        }
    }

    std::shared_ptr<const Updater> updater() const { return updater_; }

    void push_outcome(const json::value &outcome) const {
        const std::string text = boost::json::serialize(outcome);
        PluginMessage error(updater_->plugin().api().free_message);
        if (extension_->push_outcome(updater_->handle(), abi::to_lu_str(text), error.out()) != LU_OK) {
            throw PluginCallError("push_outcome failed", text, error.str());
        }
    }

    json::array take_calls() const {
        PluginMessage calls(updater_->plugin().api().free_message);
        if (extension_->take_calls(updater_->handle(), calls.out()) != LU_OK) {
            throw PluginCallError("take_calls failed", "record updater", calls.str());
        }
        json::value parsed = parse_plugin_json(calls.view(), "take_calls failed", "record updater");
        if (!parsed.is_array()) throw PluginCallError("take_calls failed", "record updater", "not an array");
        return std::move(parsed.as_array());
    }

private:
    std::shared_ptr<Updater> updater_;
    const lu_record_extension *extension_ = nullptr;
};

class ScenarioRun {
public:
    ScenarioRun(const ReplayOptions &options, const std::string &file, const Scenario &scenario, const fs::path &root,
                std::ostream &out)
        : options_(options),
          file_(file),
          root_(root),
          out_(out),
          clock_(scenario.clock),
          slot_(options.plugin, scenario.clock, {}, options.max_step_version),
          record_(options.record_updater, std::make_shared<UpdaterHostServices>()),
          executor_(updaters_),
          driver_(slot_, executor_, store_, [this] { return clock_; }) {
        updaters_.set_fallback(record_.updater());
        for (const auto &[path, content] : scenario.files) write_file(root_ / path, content);
    }

    // True when every step ran and every expectation held.
    bool run(const std::vector<ScenarioStep> &steps) {
        for (const ScenarioStep &step : steps) {
            try {
                run_step(step);
            } catch (const std::exception &e) {
                fail(step.where, step.key + ": " + e.what());
            }
            if (options_.dump) dump(step);
        }
        return passed_;
    }

private:
    // Paths in messages say ${ROOT}, as the scenario does, not the temp folder.
    void fail(const std::string &where, const std::string &what) {
        passed_ = false;
        std::string text = what;
        const std::string root = root_.string();
        for (std::size_t at = text.find(root); at != std::string::npos; at = text.find(root, at)) {
            text.replace(at, root.size(), "${ROOT}");
        }
        out_ << "FAIL " << file_ << ": " << where << ": " << text << '\n';
    }
    void report(const std::string &where, const std::vector<Mismatch> &mismatches) {
        for (const Mismatch &m : mismatches) fail(where, m.path + ": expected " + m.expected + ", got " + m.got);
    }

    void run_step(const ScenarioStep &step) {
        const json::value &value = step.value;
        if (step.key == "apply") {
            apply(value.as_object());
        } else if (step.key == "delete") {
            const std::string kind(value.at("kind").as_string());
            const std::string name(value.at("name").as_string());
            slot_.with_instance([&](const PluginInstance &instance) { return instance.remove(kind, name); });
            store_.remove(ObjectKey{kind, name});
        } else if (step.key == "clock") {
            clock_ = *common::MicroTime::parse(value.as_string());
        } else if (step.key == "write") {
            for (const auto &[path, content] : value.as_object()) {
                write_file(root_ / std::string(path), std::string(content.as_string()));
            }
        } else if (step.key == "remove") {
            for (const json::value &path : value.as_array()) fs::remove_all(root_ / std::string(path.as_string()));
        } else if (step.key == "fileEvent") {
            file_event(value.as_object());
        } else if (step.key == "reconcile") {
            reconcile(std::string(value.as_string()));
        } else if (step.key == "updater") {
            for (const json::value &outcome : value.as_array()) record_.push_outcome(outcome);
        } else if (step.key == "reload") {
            reload(value.as_object());
        } else if (step.key == "expect") {
            expect(step.where, value.as_object());
        }
    }

    void apply(const json::object &object) {
        const std::string text = boost::json::serialize(object);
        const json::object result =
            slot_.with_instance([&](const PluginInstance &instance) { return instance.upsert(text); });
        const std::string kind = common::string_field(object, {"kind"});
        const bool accepted =
            result.contains("accepted") && result.at("accepted").is_bool() && result.at("accepted").as_bool();
        const std::string message = common::string_field(result, {"message"});
        if (kind == "LiveUpdate") {
            admission_ = json::object{{"rejected", !accepted}, {"message", message}};
        }
        if (!accepted) {
            log::info("apply rejected: " + message);
            return;
        }
        store_.put(object, kind == "LiveUpdate");
    }

    void file_event(const json::object &event) {
        const std::string watch(event.at("fileWatch").as_string());
        std::optional<json::object> file_watch = store_.get(ObjectKey{"FileWatch", watch});
        if (!file_watch) throw HostError("cannot add the file event", "FileWatch/" + watch, "no such object");
        json::value &status = (*file_watch)["status"];
        if (!status.is_object()) status = json::object{};
        json::value &events = status.as_object()["fileEvents"];
        if (!events.is_array()) events = json::array{};
        events.as_array().push_back(json::object{{"time", event.at("time")}, {"seenFiles", event.at("paths")}});
        const std::string text = boost::json::serialize(*file_watch);
        const json::object result =
            slot_.with_instance([&](const PluginInstance &instance) { return instance.upsert(text); });
        if (!result.contains("accepted") || !result.at("accepted").is_bool() || !result.at("accepted").as_bool()) {
            throw HostError("cannot add the file event", "FileWatch/" + watch,
                            "rejected: " + common::string_field(result, {"message"}));
        }
        store_.put(std::move(*file_watch));
    }

    // As the real host: a plugin that cannot be loaded or restored is refused,
    // logged, and the running one stays in service; the scenario goes on.
    void reload(const json::object &options) {
        const std::string plugin = common::string_field(options, "plugin", "reload");
        try {
            if (!plugin.empty()) {
                slot_.reload(plugin);
            } else {
                slot_.reload();
            }
        } catch (const HostError &e) {
            const std::string line = std::string("hot reload refused, the running plugin stays: ") + e.what();
            log::warn(line);
            log_lines_.push_back(line);
        }
    }

    void reconcile(const std::string &name) {
        ReconcileResult result = driver_.reconcile(name);
        for (json::object &event : result.events) events_.push_back(std::move(event));
        for (StepLogLine &line : result.log) log_lines_.push_back(std::move(line.text));
        for (json::value &call : record_.take_calls()) calls_.push_back(std::move(call));
    }

    std::string log_text() const {
        std::string text;
        for (const std::string &line : log_lines_) text.append(line).push_back('\n');
        return text;
    }

    json::value status_of(const std::string &name) const {
        std::optional<json::object> object = store_.get(ObjectKey{"LiveUpdate", name});
        if (!object) return nullptr;
        const json::value *status = common::member_as_written(*object, "status");
        return status != nullptr ? *status : json::value(json::object{});
    }

    std::optional<json::value> object_field(const std::string &kind_and_name) const {
        const std::size_t slash = kind_and_name.find('/');
        auto object = store_.get(ObjectKey{kind_and_name.substr(0, slash), kind_and_name.substr(slash + 1)});
        if (!object) return std::nullopt;
        return json::value(std::move(*object));
    }

    void expect(const std::string &where, const json::object &expectation) {
        std::vector<Mismatch> mismatches;
        if (const json::object *status = common::object_field(expectation, "status", where)) {
            for (const auto &[name, partial] : *status) {
                const json::value actual = status_of(std::string(name));
                match_partial(partial, actual.is_null() ? nullptr : &actual, join_key("status", name), mismatches);
            }
        }
        if (const json::value *calls = common::member_as_written(expectation, "calls")) {
            const json::value actual = std::move(calls_);
            calls_ = json::array{};
            match_partial(*calls, &actual, "calls", mismatches);
        }
        if (const json::value *events = common::member_as_written(expectation, "events")) {
            const json::value actual = std::move(events_);
            events_ = json::array{};
            match_partial(*events, &actual, "events", mismatches);
        }
        if (const json::object *log_expect = common::object_field(expectation, "log", where)) {
            const std::string text = log_text();
            for (const auto &[which, texts] : *log_expect) {
                const bool want = which == "contains";
                for (const json::value &needle : texts.as_array()) {
                    const bool present = text.find(std::string_view(needle.as_string())) != std::string::npos;
                    if (present != want) {
                        mismatches.push_back(Mismatch{join_key("log", which), json::serialize(needle),
                                                      want ? "(not in the log)" : "(in the log)"});
                    }
                }
            }
        }
        if (const json::object *writes = common::object_field(expectation, "statusWrites", where)) {
            for (const auto &[name, count] : *writes) {
                const json::value actual = store_.status_writes(ObjectKey{"LiveUpdate", std::string(name)});
                match_partial(count, &actual, join_key("statusWrites", name), mismatches);
            }
        }
        if (const json::value *admission = common::member_as_written(expectation, "admission")) {
            match_partial(*admission, admission_ ? &*admission_ : nullptr, "admission", mismatches);
        }
        if (const json::object *objects = common::object_field(expectation, "objects", where)) {
            for (const auto &[key, partial] : *objects) {
                std::optional<json::value> actual = object_field(std::string(key));
                match_partial(partial, actual ? &*actual : nullptr, join_key("objects", key), mismatches);
            }
        }
        report(where, mismatches);
    }

    void dump(const ScenarioStep &step) const {
        json::object objects;
        json::object writes;
        for (const ObjectKey &key : store_.keys()) {
            if (auto object = store_.get(key)) objects[key.text()] = std::move(*object);
            if (key.kind == "LiveUpdate") writes[key.name] = store_.status_writes(key);
        }
        json::array log;
        for (const std::string &line : log_lines_) log.push_back(json::string(line));
        json::object state{{"clock", clock_.format()},
                           {"objects", std::move(objects)},
                           {"statusWrites", std::move(writes)},
                           {"pendingCalls", calls_},
                           {"pendingEvents", events_},
                           {"admission", admission_ ? *admission_ : json::value(nullptr)},
                           {"log", std::move(log)}};
        out_ << "DUMP " << file_ << ": " << step.where << " (" << step.key << "): " << json::serialize(state) << '\n';
    }

    const ReplayOptions &options_;
    const std::string &file_;
    fs::path root_;
    std::ostream &out_;
    common::MicroTime clock_;
    PluginSlot slot_;
    JsonObjectStore store_;
    UpdaterRegistry updaters_;
    RecordUpdater record_;
    Executor executor_;
    ReconcileDriver driver_;
    json::array calls_;
    json::array events_;
    std::vector<std::string> log_lines_;
    std::optional<json::value> admission_;
    bool passed_ = true;
};

}  // namespace

bool run_scenario_file(const ReplayOptions &options, const std::string &file, std::ostream &out) {
    try {
        const std::string text = read_file(file);
        TempRoot root;
        const Scenario scenario = parse_scenario(text, root.path().string(), file,
                                                 [](const fs::path &path) { return read_file(path.string()); });
        ScenarioRun run(options, file, scenario, root.path(), out);
        const bool passed = run.run(scenario.steps);
        if (passed) out << "PASS " << file << '\n';
        return passed;
    } catch (const std::exception &e) {
        out << "FAIL " << file << ": " << e.what() << '\n';
        return false;
    }
}

int run_replay(const ReplayOptions &options, const std::vector<std::string> &files, std::ostream &out) {
    std::size_t passed = 0;
    std::size_t failed = 0;
    for (const std::string &file : files) {
        (run_scenario_file(options, file, out) ? passed : failed) += 1;
        out.flush();
    }
    out << passed << " passed, " << failed << " failed" << '\n';
    return failed == 0 ? 0 : 1;
}

}  // namespace liveupdate::host::replay
