// The liveupdate plugin's C ABI. Every entry point catches everything: no
// exception crosses the boundary; failures become result codes and messages.
#include <cstring>
#include <exception>
#include <new>
#include <string>
#include <variant>
#include <vector>

#include "common/json_fields.hpp"
#include "liveupdate/ext/sync_targets.h"
#include "liveupdate/liveupdate.hpp"
#include "plugin/abi/engine_handle.hpp"
#include "plugin/core/snapshot.hpp"

namespace {

using liveupdate::abi::make_message;
using liveupdate::abi::to_view;
using liveupdate::common::MicroTime;
namespace json = boost::json;
namespace abi_impl = liveupdate::abi_impl;

void set_message(lu_message *out, std::string_view text) {
    if (out != nullptr) *out = make_message(text);
}

constexpr lu_plugin_info kInfo{sizeof(lu_plugin_info), 1, LU_ABI_VERSION, "liveupdate", "liveupdate", "0.1.0"};

std::string document_text(const json::value &v) { return json::serialize(v); }

// Runs f, turning exceptions into result codes and an error message in out.
template <class F>
int32_t guarded(lu_message *out, F &&f) noexcept {
    try {
        return f();
    } catch (const liveupdate::common::DecodeError &e) {
        set_message(out, e.what());
        return LU_ERR_INVALID_ARGUMENT;
    } catch (const liveupdate::UnsupportedSnapshot &e) {
        set_message(out, e.what());
        return LU_ERR_UNSUPPORTED;
    } catch (const liveupdate::EngineBusy &e) {
        set_message(out, e.what());
        return LU_ERR_STATE;
    } catch (const std::bad_alloc &) {
        set_message(out, "out of memory");
        return LU_ERR_INTERNAL;
    } catch (const std::exception &e) {
        set_message(out, std::string("internal error: ") + e.what());
        return LU_ERR_INTERNAL;
    } catch (...) {
        set_message(out, "internal error: unknown exception");
        return LU_ERR_INTERNAL;
    }
}

// For validate and upsert, whose LU_ERR_INVALID_ARGUMENT always comes with an
// admission document: input the engine could not even decode is a rejection too.
template <class F>
int32_t admission_guarded(lu_message *out, F &&f) noexcept {
    return guarded(out, [&]() -> int32_t {
        try {
            return f();
        } catch (const liveupdate::common::DecodeError &e) {
            set_message(out, document_text(abi_impl::rejection_document(e.what())));
            return LU_ERR_INVALID_ARGUMENT;
        }
    });
}

// The step's text, the step dropped before it is copied into the message: an
// initial sync's list of files need not sit beside two copies of its text.
void set_step_message(lu_message *out, liveupdate::Step &&step, int step_version) {
    const std::string text = liveupdate::encode_step(step, step_version);
    step = liveupdate::Step{};
    set_message(out, text);
}

std::optional<MicroTime> parse_now(lu_str now) { return MicroTime::parse(to_view(now)); }

int32_t lu_create(const lu_engine_host *host, lu_str options_json, lu_engine **out_engine, lu_message *out_error) {
    if (out_engine == nullptr) return LU_ERR_INVALID_ARGUMENT;
    *out_engine = nullptr;
    return guarded(out_error, [&]() -> int32_t {
        auto handle = std::make_unique<lu_engine>();
        handle->host = abi_impl::copy_host(host);
        const abi_impl::CreateOptions options = abi_impl::create_options(to_view(options_json));
        handle->engine = std::make_unique<liveupdate::Engine>(options.start_time, options.step_version);
        handle->engine->on_restore_problem(
            [host = handle->host](const std::string &problem) { abi_impl::log_to_host(host, LU_LOG_ERROR, problem); });
        // What was negotiated, for whoever debugs a host/plugin pairing.
        abi_impl::log_to_host(handle->host, LU_LOG_DEBUG,
                              std::string("liveupdate ") + kInfo.version + ": ABI " + std::to_string(LU_ABI_VERSION) +
                                  ", step documents of version " + std::to_string(options.step_version) +
                                  ", host table of " + std::to_string(host != nullptr ? host->struct_size : 0) +
                                  " bytes");
        *out_engine = handle.release();
        return LU_OK;
    });
}

void lu_destroy(lu_engine *engine) { delete engine; }

int32_t lu_validate(lu_engine *engine, lu_str object_json, lu_message *out_result) {
    if (engine == nullptr) return LU_ERR_INVALID_ARGUMENT;
    return admission_guarded(out_result, [&]() -> int32_t {
        const auto admission = engine->engine->validate(to_view(object_json));
        set_message(out_result, document_text(abi_impl::admission_document(admission, {})));
        return admission.accepted ? LU_OK : LU_ERR_INVALID_ARGUMENT;
    });
}

int32_t lu_upsert(lu_engine *engine, lu_str object_json, lu_message *out_result) {
    if (engine == nullptr) return LU_ERR_INVALID_ARGUMENT;
    return admission_guarded(out_result, [&]() -> int32_t {
        const auto result = engine->engine->upsert(to_view(object_json));
        set_message(out_result, document_text(abi_impl::admission_document(result.admission, result.due)));
        return result.admission.accepted ? LU_OK : LU_ERR_INVALID_ARGUMENT;
    });
}

int32_t lu_remove(lu_engine *engine, lu_str kind, lu_str name, lu_message *out_result) {
    if (engine == nullptr) return LU_ERR_INVALID_ARGUMENT;
    return guarded(out_result, [&]() -> int32_t {
        const auto due = engine->engine->remove(to_view(kind), std::string(to_view(name)));
        set_message(out_result, document_text(json::object{{"due", abi_impl::string_array(due)}}));
        return LU_OK;
    });
}

int32_t lu_reconcile_begin(lu_engine *engine, lu_str live_update_name, lu_str now, lu_reconcile **out_session,
                           lu_message *out_step) {
    if (engine == nullptr || out_session == nullptr) return LU_ERR_INVALID_ARGUMENT;
    *out_session = nullptr;
    return guarded(out_step, [&]() -> int32_t {
        const auto t = parse_now(now);
        if (!t) {
            set_message(out_step, "now: expected RFC 3339 time, got \"" + std::string(to_view(now)) + "\"");
            return LU_ERR_INVALID_ARGUMENT;
        }
        auto begun = engine->engine->begin(std::string(to_view(live_update_name)), *t);
        auto handle = std::make_unique<lu_reconcile>();
        handle->session = std::move(begun.session);
        handle->host = engine->host;
        handle->step_version = engine->engine->step_version();
        set_step_message(out_step, std::move(begun.step), handle->step_version);
        *out_session = handle.release();
        return LU_OK;
    });
}

int32_t lu_reconcile_continue(lu_reconcile *session, lu_str outcome_json, lu_str now, lu_message *out_step) {
    if (session == nullptr) return LU_ERR_INVALID_ARGUMENT;
    return guarded(out_step, [&]() -> int32_t {
        if (!session->session->awaiting_outcome()) {
            set_message(out_step, "reconcile_continue: no update is waiting for an outcome");
            return LU_ERR_STATE;
        }
        const auto t = parse_now(now);
        if (!t) {
            set_message(out_step, "now: expected RFC 3339 time, got \"" + std::string(to_view(now)) + "\"");
            return LU_ERR_INVALID_ARGUMENT;
        }
        // stepVersion 1 reports the outcome of its batch of one alone.
        const auto outcomes = session->step_version >= 2
                                  ? liveupdate::decode_outcomes(to_view(outcome_json))
                                  : std::vector{liveupdate::decode_outcome(to_view(outcome_json))};
        auto step = session->session->resume_batch(outcomes, *t);
        set_step_message(out_step, std::move(step), session->step_version);
        return LU_OK;
    });
}

void lu_reconcile_end(lu_reconcile *session) {
    if (session == nullptr) return;
    // Abandoning only updates in-memory state; the session is released regardless.
    try {
        session->session->abandon();
    } catch (const std::exception &e) {
        abi_impl::log_to_host(session->host, LU_LOG_ERROR,
                              std::string("reconcile_end: abandoning failed: ") + e.what());
    } catch (...) {
        abi_impl::log_to_host(session->host, LU_LOG_ERROR, "reconcile_end: abandoning failed: unknown exception");
    }
    delete session;
}

int32_t lu_snapshot(lu_engine *engine, lu_message *out_blob) {
    if (engine == nullptr) return LU_ERR_INVALID_ARGUMENT;
    return guarded(out_blob, [&]() -> int32_t {
        set_message(out_blob, engine->engine->snapshot());
        return LU_OK;
    });
}

int32_t lu_restore(lu_engine *engine, lu_str blob, lu_message *out_error) {
    if (engine == nullptr) return LU_ERR_INVALID_ARGUMENT;
    return guarded(out_error, [&]() -> int32_t {
        engine->engine->restore(to_view(blob));
        return LU_OK;
    });
}

void lu_free_message(lu_message *message) { liveupdate::abi::release_message(message); }

int32_t lu_sync_targets(lu_engine *engine, lu_str live_update, lu_message *out_result) {
    if (engine == nullptr) return LU_ERR_INVALID_ARGUMENT;
    return guarded(out_result, [&]() -> int32_t {
        auto answer = engine->engine->sync_targets(std::string(to_view(live_update)));
        if (const auto *problem = std::get_if<liveupdate::SyncTargetsProblem>(&answer)) {
            set_message(out_result, problem->message);
            return problem->not_found ? LU_ERR_NOT_FOUND : LU_ERR_STATE;
        }
        set_message(out_result,
                    document_text(liveupdate::encode_sync_targets(std::get<liveupdate::SyncTargets>(answer))));
        return LU_OK;
    });
}

int32_t lu_container_repaired(lu_engine *engine, lu_str live_update, lu_str container_id, int32_t *out_cleared) {
    if (engine == nullptr) return LU_ERR_INVALID_ARGUMENT;
    return guarded(nullptr, [&]() -> int32_t {
        const std::optional<bool> cleared =
            engine->engine->container_repaired(std::string(to_view(live_update)), std::string(to_view(container_id)));
        if (!cleared) return LU_ERR_NOT_FOUND;
        if (out_cleared != nullptr) *out_cleared = *cleared ? 1 : 0;
        return LU_OK;
    });
}

constexpr lu_sync_targets_extension kSyncTargets{sizeof(lu_sync_targets_extension), lu_sync_targets,
                                                 lu_container_repaired};

const void *lu_get_extension(lu_engine *, const char *id) {
    if (id != nullptr && std::strcmp(id, LU_SYNC_TARGETS_EXTENSION_ID) == 0) return &kSyncTargets;
    return nullptr;
}

constexpr lu_liveupdate_api kApi{
    sizeof(lu_liveupdate_api),
    LU_ABI_VERSION,
    lu_create,
    lu_destroy,
    lu_validate,
    lu_upsert,
    lu_remove,
    lu_reconcile_begin,
    lu_reconcile_continue,
    lu_reconcile_end,
    lu_snapshot,
    lu_restore,
    lu_free_message,
    lu_get_extension,
};

}  // namespace

extern "C" LU_EXPORT const lu_liveupdate_api *lu_liveupdate_plugin_entry(uint32_t abi_version,
                                                                         const lu_plugin_info **out_info) {
    if (out_info != nullptr) *out_info = &kInfo;
    if (abi_version < kInfo.abi_min || abi_version > kInfo.abi_max) return nullptr;
    return &kApi;
}
