// The record updater (lu_updater_api + LU_RECORD_EXTENSION_ID): each update
// is recorded as a replay "record" call, with the archive's regular-file and
// symlink entry names read back from the stream it was handed, and answered
// with the next queued outcome (success when the queue is empty).
#include <archive.h>
#include <archive_entry.h>

#include <algorithm>
#include <deque>
#include <memory>
#include <mutex>
#include <new>
#include <string>

#include <boost/json.hpp>

#include "liveupdate/liveupdate.hpp"

namespace {
namespace json = boost::json;
using liveupdate::abi::make_message;
using liveupdate::abi::to_view;

struct Outcome {
    int32_t kind = LU_OUTCOME_OK;
    int32_t exit_code = 0;
    std::string message;
};

struct Recorder {
    lu_updater_host host{};
    std::mutex mutex;
    std::deque<Outcome> queued;
    json::array calls;

    void log(lu_log_level level, const std::string &line) const {
        if (host.log != nullptr) host.log(host.ctx, level, lu_str{line.data(), line.size()});
    }
};

std::string text(const char *s) { return s == nullptr ? std::string() : std::string(s); }

struct Source {
    lu_archive_stream stream;
    char data[64 * 1024];
};

la_ssize_t read_stream(struct archive *, void *ctx, const void **buffer) {
    auto *source = static_cast<Source *>(ctx);
    *buffer = source->data;
    int64_t n = source->stream.read(source->stream.ctx, source->data, sizeof(source->data));
    return n < 0 ? -1 : static_cast<la_ssize_t>(n);
}

// Reads the whole archive; the sorted entry names, or an error text.
bool read_entry_names(lu_archive_stream stream, json::array &names, std::string &error) {
    if (stream.read == nullptr) return true;  // no archive handed: nothing to list
    auto source = std::make_unique<Source>();
    source->stream = stream;
    struct archive *reader = archive_read_new();
    archive_read_support_format_tar(reader);
    archive_read_support_format_empty(reader);
    bool ok = archive_read_open(reader, source.get(), nullptr, read_stream, nullptr) == ARCHIVE_OK;
    std::vector<std::string> found;
    struct archive_entry *entry = nullptr;
    while (ok) {
        int rc = archive_read_next_header(reader, &entry);
        if (rc == ARCHIVE_EOF) break;
        if (rc < ARCHIVE_WARN) {
            ok = false;
            break;
        }
        const mode_t type = archive_entry_filetype(entry);
        if (type == AE_IFREG || type == AE_IFLNK) found.emplace_back(text(archive_entry_pathname(entry)));
        if (archive_read_data_skip(reader) < ARCHIVE_WARN) ok = false;
    }
    if (!ok) {
        const char *why = archive_error_string(reader);
        error = "reading the archive: " + text(why != nullptr ? why : "the stream failed");
    }
    archive_read_free(reader);
    std::sort(found.begin(), found.end());
    for (std::string &name : found) names.emplace_back(std::move(name));
    return ok;
}

json::object record_call(const lu_update_request &request, json::array archive) {
    const lu_container_ref *c = request.container;
    json::object container{{"containerID", text(c ? c->container_id : nullptr)},
                           {"containerName", text(c ? c->container_name : nullptr)},
                           {"podName", text(c ? c->pod_name : nullptr)},
                           {"namespace", text(c ? c->namespace_name : nullptr)}};
    if (c != nullptr && c->root != nullptr && c->root[0] != '\0') container["root"] = c->root;
    json::array copies;
    for (size_t i = 0; i < request.copy_count; ++i) {
        copies.push_back(json::object{{"local", text(request.copies[i].local_path)},
                                      {"container", text(request.copies[i].container_path)}});
    }
    json::array deletes;
    for (size_t i = 0; i < request.delete_count; ++i) deletes.emplace_back(text(request.delete_paths[i]));
    json::array runs;
    for (size_t i = 0; i < request.run_count; ++i) {
        json::array args;
        for (size_t j = 0; j < request.runs[i].argc; ++j) args.emplace_back(text(request.runs[i].argv[j]));
        runs.push_back(json::object{{"args", std::move(args)}, {"echoOff", request.runs[i].echo_off != 0}});
    }
    return json::object{{"liveUpdate", text(request.live_update)},
                        {"via", text(request.via)},
                        {"container", std::move(container)},
                        {"copy", std::move(copies)},
                        {"delete", std::move(deletes)},
                        {"archive", std::move(archive)},
                        {"runs", std::move(runs)},
                        {"restart", request.restart != 0},
                        {"initialSync", request.initial_sync != 0}};
}

int32_t parse_outcome(lu_str outcome_json, Outcome &out, std::string &error) {
    boost::system::error_code ec;
    json::value value = json::parse(to_view(outcome_json), ec);
    if (ec || !value.is_object() || value.as_object().size() != 1) {
        error = "an outcome is {\"ok\": true}, {\"runFailure\": {...}} or {\"infraFailure\": \"...\"}";
        return LU_ERR_INVALID_ARGUMENT;
    }
    const auto &[key, body] = *value.as_object().begin();
    if (key == "ok") {
        out = Outcome{};
    } else if (key == "runFailure" && body.is_object()) {
        const json::value *code = body.as_object().if_contains("exitCode");
        const json::value *message = body.as_object().if_contains("message");
        out.kind = LU_OUTCOME_RUN_FAILURE;
        out.exit_code = code != nullptr && code->is_number() ? code->to_number<int32_t>() : 1;
        out.message = message != nullptr && message->is_string() ? std::string(message->as_string()) : "";
    } else if (key == "infraFailure" && body.is_string()) {
        out.kind = LU_OUTCOME_INFRA_FAILURE;
        out.message = std::string(body.as_string());
    } else {
        error = "unknown outcome " + json::serialize(value);
        return LU_ERR_INVALID_ARGUMENT;
    }
    return LU_OK;
}

int32_t record_create(const lu_updater_host *host, lu_str, lu_updater **out_updater, lu_message *out_error) {
    auto *recorder = new (std::nothrow) Recorder;
    if (recorder == nullptr) {
        if (out_error != nullptr) *out_error = make_message("out of memory");
        return LU_ERR_INTERNAL;
    }
    if (host != nullptr) recorder->host = *host;
    *out_updater = reinterpret_cast<lu_updater *>(recorder);
    return LU_OK;
}

void record_destroy(lu_updater *updater) { delete reinterpret_cast<Recorder *>(updater); }

int32_t record_update(lu_updater *updater, const lu_update_request *request, lu_update_outcome *out_outcome) {
    if (updater == nullptr || request == nullptr || out_outcome == nullptr) return LU_ERR_INVALID_ARGUMENT;
    auto *recorder = reinterpret_cast<Recorder *>(updater);
    try {
        json::array archive;
        std::string archive_error;
        const bool archive_ok = read_entry_names(request->archive, archive, archive_error);
        Outcome outcome;
        {
            std::lock_guard lock(recorder->mutex);
            recorder->calls.push_back(record_call(*request, std::move(archive)));
            if (!recorder->queued.empty()) {
                outcome = std::move(recorder->queued.front());
                recorder->queued.pop_front();
            }
        }
        if (!archive_ok) outcome = Outcome{LU_OUTCOME_INFRA_FAILURE, 0, archive_error};
        // As a real updater: commands run only once the files are in place.
        if (outcome.kind != LU_OUTCOME_INFRA_FAILURE) {
            for (size_t i = 0; i < request->run_count; ++i) {
                if (request->runs[i].echo_off != 0) continue;
                std::string line = "[CMD " + std::to_string(i + 1) + "/" + std::to_string(request->run_count) + "]";
                for (size_t j = 0; j < request->runs[i].argc; ++j) line += " " + text(request->runs[i].argv[j]);
                recorder->log(LU_LOG_INFO, line);
            }
        }
        out_outcome->kind = outcome.kind;
        out_outcome->exit_code = outcome.exit_code;
        out_outcome->message = make_message(outcome.message);
        return LU_OK;
    } catch (const std::exception &e) {
        out_outcome->kind = LU_OUTCOME_INFRA_FAILURE;
        out_outcome->exit_code = 0;
        out_outcome->message = make_message(std::string("record updater: ") + e.what());
        return LU_OK;
    }
}

void record_free_message(lu_message *message) { liveupdate::abi::release_message(message); }

int32_t record_push_outcome(lu_updater *updater, lu_str outcome_json, lu_message *out_error) {
    if (updater == nullptr) return LU_ERR_INVALID_ARGUMENT;
    auto *recorder = reinterpret_cast<Recorder *>(updater);
    Outcome outcome;
    std::string error;
    if (int32_t rc = parse_outcome(outcome_json, outcome, error); rc != LU_OK) {
        if (out_error != nullptr) *out_error = make_message(error);
        return rc;
    }
    std::lock_guard lock(recorder->mutex);
    recorder->queued.push_back(std::move(outcome));
    return LU_OK;
}

int32_t record_take_calls(lu_updater *updater, lu_message *out_calls_json) {
    if (updater == nullptr || out_calls_json == nullptr) return LU_ERR_INVALID_ARGUMENT;
    auto *recorder = reinterpret_cast<Recorder *>(updater);
    json::array calls;
    {
        std::lock_guard lock(recorder->mutex);
        calls.swap(recorder->calls);
    }
    *out_calls_json = make_message(json::serialize(calls));
    return out_calls_json->data != nullptr ? LU_OK : LU_ERR_INTERNAL;
}

const lu_record_extension kRecordExtension{sizeof(lu_record_extension), record_push_outcome, record_take_calls};

const void *record_get_extension(lu_updater *, const char *id) {
    return id != nullptr && std::string_view(id) == LU_RECORD_EXTENSION_ID ? &kRecordExtension : nullptr;
}

const lu_updater_api kApi{sizeof(lu_updater_api), LU_ABI_VERSION, record_create,       record_destroy,
                          record_update,           record_free_message,             record_get_extension};

const lu_plugin_info kInfo{sizeof(lu_plugin_info), LU_ABI_VERSION, LU_ABI_VERSION, "updater", "record", "0.1.0"};

}  // namespace

extern "C" LU_EXPORT const lu_updater_api *lu_updater_plugin_entry(uint32_t abi_version,
                                                                  const lu_plugin_info **out_info) {
    if (out_info != nullptr) *out_info = &kInfo;
    return abi_version == LU_ABI_VERSION ? &kApi : nullptr;
}
