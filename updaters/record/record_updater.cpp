// The record updater (liveupdate/updater.hpp + liveupdate/ext/record.h): each update
// is recorded as a replay "record" call, with the archive's regular-file and
// symlink entry names read back from the stream it was handed, and answered
// with the next queued outcome (success when the queue is empty).
#include <archive.h>
#include <archive_entry.h>

#include <algorithm>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include <boost/json.hpp>

#include "common/archive_errors.hpp"
#include "common/json_fields.hpp"
#include "common/mutex.hpp"
#include "common/tar_reader.hpp"
#include "common/update_step/outcome.hpp"
#include "liveupdate/ext/record.h"
#include "liveupdate/updater.hpp"
#include "updaters/shared/update_messages.hpp"

namespace {
namespace json = boost::json;
namespace lu = liveupdate::updater;
namespace common = liveupdate::common;
using liveupdate::abi::make_message;
using liveupdate::abi::to_view;
using lu::Outcome;

std::string text(const char *s) { return s == nullptr ? std::string() : std::string(s); }

// Reads the whole archive; the sorted entry names, or an error text.
bool read_entry_names(const lu::ArchiveReader &read, json::array &names, std::string &error) {
    if (!read) return true;  // no archive handed: nothing to list
    std::vector<std::string> found;
    bool ok = true;
    try {
        liveupdate::common::TarReader reader(read);
        while (archive_entry *entry = reader.next()) {
            const mode_t type = archive_entry_filetype(entry);
            if (type == AE_IFREG || type == AE_IFLNK) found.emplace_back(text(archive_entry_pathname(entry)));
            if (archive_read_data_skip(reader.get()) < ARCHIVE_WARN)
                throw liveupdate::common::TarReadError(liveupdate::common::archive_error_text(reader.get()));
        }
    } catch (const liveupdate::common::TarReadError &e) {
        error = std::string("reading the archive: ") + e.what();
        ok = false;
    }
    std::sort(found.begin(), found.end());
    for (std::string &name : found) names.emplace_back(std::move(name));
    return ok;
}

json::object record_call(const lu::Request &request, json::array archive) {
    const lu::ContainerRef &c = request.container;
    json::object container{
        {"containerID", c.id}, {"containerName", c.name}, {"podName", c.pod}, {"namespace", c.namespace_name}};
    if (!c.root.empty()) container["root"] = c.root;
    json::array copies;
    for (const lu::CopyMapping &copy : request.copies)
        copies.push_back(json::object{{"local", copy.local_path}, {"container", copy.container_path}});
    json::array deletes(request.delete_paths.begin(), request.delete_paths.end());
    json::array runs;
    for (const lu::RunStep &run : request.runs)
        runs.push_back(
            json::object{{"args", json::array(run.argv.begin(), run.argv.end())}, {"echoOff", run.echo_off}});
    return json::object{
        {"liveUpdate", request.live_update}, {"via", request.via},           {"container", std::move(container)},
        {"copy", std::move(copies)},         {"delete", std::move(deletes)}, {"archive", std::move(archive)},
        {"runs", std::move(runs)},           {"restart", request.restart},   {"initialSync", request.initial_sync}};
}

int32_t parse_outcome(lu_str outcome_json, Outcome &out, std::string &error) {
    try {
        out = liveupdate::update_step::decode_outcome(common::parse_limited(to_view(outcome_json)), "");
    } catch (const common::DecodeError &e) {
        error = e.what();
        return LU_ERR_INVALID_ARGUMENT;
    }
    return LU_OK;
}

class Recorder {
public:
    static constexpr const char *name = "record";
    static constexpr const char *version = "0.1.0";

    Recorder(std::string_view, const lu::Host &) {}

    Outcome update(const lu::Request &request) {
        json::array archive;
        std::string archive_error;
        const bool archive_ok = read_entry_names(request.archive, archive, archive_error);
        Outcome outcome;
        {
            common::MutexLock lock(mutex_);
            calls_.push_back(record_call(request, std::move(archive)));
            if (!queued_.empty()) {
                outcome = std::move(queued_.front());
                queued_.pop_front();
            }
        }
        if (!archive_ok) outcome = Outcome::infra_failure(archive_error);
        // As a real updater: commands run only once the files are in place.
        if (outcome.kind != Outcome::Kind::infra_failure && outcome.kind != Outcome::Kind::container_not_running) {
            for (size_t i = 0; i < request.runs.size(); ++i) {
                if (request.runs[i].echo_off) continue;
                request.log(LU_LOG_INFO,
                            liveupdate::updaters::run_step_line(i, request.runs.size(), request.runs[i].argv));
            }
        }
        return outcome;
    }

    const void *extension(std::string_view id) const;

    void push(Outcome outcome) {
        common::MutexLock lock(mutex_);
        queued_.push_back(std::move(outcome));
    }

    json::array take_calls() {
        json::array calls;
        common::MutexLock lock(mutex_);
        calls.swap(calls_);
        return calls;
    }

private:
    common::Mutex mutex_;
    std::deque<Outcome> queued_ LU_GUARDED_BY(mutex_);
    json::array calls_ LU_GUARDED_BY(mutex_);
};

int32_t record_push_outcome(lu_updater *updater, lu_str outcome_json, lu_message *out_error) {
    if (updater == nullptr) return LU_ERR_INVALID_ARGUMENT;
    Outcome outcome;
    std::string error;
    if (int32_t rc = parse_outcome(outcome_json, outcome, error); rc != LU_OK) {
        if (out_error != nullptr) *out_error = make_message(error);
        return rc;
    }
    lu::instance<Recorder>(updater).push(std::move(outcome));
    return LU_OK;
}

int32_t record_take_calls(lu_updater *updater, lu_message *out_calls_json) {
    if (updater == nullptr || out_calls_json == nullptr) return LU_ERR_INVALID_ARGUMENT;
    *out_calls_json = make_message(json::serialize(lu::instance<Recorder>(updater).take_calls()));
    return out_calls_json->data != nullptr ? LU_OK : LU_ERR_INTERNAL;
}

const lu_record_extension kRecordExtension{sizeof(lu_record_extension), record_push_outcome, record_take_calls};

const void *Recorder::extension(std::string_view id) const {
    return id == LU_RECORD_EXTENSION_ID ? &kRecordExtension : nullptr;
}

}  // namespace

extern "C" LU_EXPORT const lu_updater_api *lu_updater_plugin_entry(uint32_t abi_version,
                                                                   const lu_plugin_info **out_info) {
    return lu::entry<Recorder>(abi_version, out_info);
}
