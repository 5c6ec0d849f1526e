// Feeds arbitrary bytes to the liveupdate plugin through its C ABI: records
// separated by NUL bytes, each "u<object json>" (upsert), "v<object json>"
// (validate), "r<snapshot>" (restore), "R<snapshot>" (restore, the checksum
// of its liveUpdatesIndex made right first, so that the index's offsets are
// believed), "d<Kind>/<name>" (remove); then every
// LiveUpdate made due is reconciled, updates answered with outcomes chosen
// by the input. Checks invariants besides memory safety: every step is JSON
// of the documented shape, a snapshot always restores, and a second
// reconcile with nothing new and no update writes no status.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <string_view>

#include <boost/json.hpp>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "liveupdate/liveupdate.hpp"

// The plugin's one exported symbol (the fuzzer links the plugin directly).
extern "C" const lu_liveupdate_api *lu_liveupdate_plugin_entry(uint32_t abi_version, const lu_plugin_info **out_info);

namespace {

namespace json = boost::json;
using liveupdate::abi::to_lu_str;
using liveupdate::abi::to_view;

const lu_liveupdate_api *api() {
    static const lu_liveupdate_api *table = [] {
        const lu_plugin_info *info = nullptr;
        return lu_liveupdate_plugin_entry(LU_ABI_VERSION, &info);
    }();
    return table;
}

[[noreturn]] void invariant_broken(const char *what, std::string_view detail) {
    std::fprintf(stderr, "invariant broken: %s: %.*s\n", what, static_cast<int>(detail.size()), detail.data());
    std::abort();
}

struct Message {
    lu_message m{nullptr, 0};
    ~Message() { api()->free_message(&m); }
    std::string_view view() const { return to_view(m); }
};

void collect_due(std::string_view result, std::set<std::string> &due) {
    boost::system::error_code ec;
    const auto v = json::parse(result, ec);
    if (ec || !v.is_object()) return;
    if (const auto *d = v.get_object().if_contains("due"); d && d->is_array())
        for (const auto &n : d->get_array())
            if (n.is_string()) due.insert(std::string(n.get_string()));
}

json::object parse_step(std::string_view text) {
    boost::system::error_code ec;
    auto v = json::parse(text, ec);
    if (ec || !v.is_object()) invariant_broken("step is not a JSON object", text);
    auto &o = v.get_object();
    const auto *type = o.if_contains("type");
    if (type == nullptr || !type->is_string() || (type->get_string() != "update" && type->get_string() != "done"))
        invariant_broken("step without a valid type", text);
    if (type->get_string() == "done" && (!o.contains("status") || !o.contains("statusChanged")))
        invariant_broken("done step without status/statusChanged", text);
    if (type->get_string() == "update" && !o.contains("update")) invariant_broken("update step without update", text);
    return std::move(o);
}

// The snapshot with the checksum its index would have for the "bytes" it
// names after the index (plugin/core/snapshot_index.hpp); as it is when it has none.
std::string rehashed(std::string_view snapshot) {
    std::string text(snapshot);
    const std::size_t hash_at = text.find(R"("xxh3":")");
    const std::size_t bytes_at = text.find(R"("bytes":)");
    // The index ends with its list of liveUpdates; the objects follow.
    const std::size_t index_end = text.find(R"(]},"objects":[)");
    const std::size_t body = index_end + 2;
    if (hash_at == std::string::npos || bytes_at == std::string::npos || index_end == std::string::npos ||
        hash_at + 8 + 16 > text.size())
        return text;
    const unsigned long long bytes = std::strtoull(text.c_str() + bytes_at + 8, nullptr, 10);
    if (body > text.size() || bytes > text.size() - body) return text;
    char digits[17];
    std::snprintf(digits, sizeof digits, "%016llx",
                  static_cast<unsigned long long>(XXH3_64bits(text.data() + body, bytes)));
    text.replace(hash_at + 8, 16, digits);
    return text;
}

const std::filesystem::path kRoot = "/tmp/lu-fuzz-root";

bool under_root(std::string_view path) {
    if (path.empty() || path.front() != '/') return false;
    const std::filesystem::path normal = std::filesystem::path(path).lexically_normal();
    return std::mismatch(kRoot.begin(), kRoot.end(), normal.begin(), normal.end()).first == kRoot.end();
}

// A sync's localPath: absolute, or relative to the basePath without climbing out of it.
bool local_path_stays(std::string_view path) {
    if (!path.empty() && path.front() == '/') return under_root(path);
    const std::filesystem::path normal = std::filesystem::path(path).lexically_normal();
    return normal.empty() || *normal.begin() != "..";
}

// Whether every LiveUpdate spec in the document syncs from inside the fuzz
// root. The plugin walks a sync's local tree (initial sync); elsewhere that
// tree is the machine's (/proc, /tmp where the other fuzz run writes), it
// changes between two reconciles and takes minutes to walk.
bool syncs_stay_in_root(const json::value &v) {
    if (const json::array *a = v.if_array())
        return std::all_of(a->begin(), a->end(), [](const json::value &e) { return syncs_stay_in_root(e); });
    const json::object *o = v.if_object();
    if (o == nullptr) return true;
    if (const json::value *syncs = o->if_contains("syncs")) {
        const json::value *base = o->if_contains("basePath");
        if (base == nullptr || !base->is_string() || base->get_string().empty() || !under_root(base->get_string()))
            return false;
        if (const json::array *rules = syncs->if_array()) {
            for (const json::value &rule : *rules) {
                const json::value *local = rule.is_object() ? rule.get_object().if_contains("localPath") : nullptr;
                if (local != nullptr && local->is_string() && !local_path_stays(local->get_string())) return false;
            }
        }
    }
    return std::all_of(o->begin(), o->end(),
                       [](const json::key_value_pair &m) { return syncs_stay_in_root(m.value()); });
}

// A record the plugin could read as JSON is fed only when its syncs stay in
// the root; one it cannot read is fed as it is (the plugin refuses it).
bool may_feed(std::string_view text) {
    boost::system::error_code ec;
    json::parse_options options;
    options.max_depth = 1000;  // deeper than the plugin reads, shallow for the walk below
    const json::value v = json::parse(text, ec, {}, options);
    return ec || syncs_stay_in_root(v);
}

struct Reconciled {
    std::size_t updates = 0;
    bool status_changed = false;
};

Reconciled reconcile(lu_engine *engine, const std::string &name, std::uint32_t &choice) {
    Reconciled r;
    const char *now = "2026-01-01T00:01:00.000000Z";
    lu_reconcile *session = nullptr;
    Message step;
    if (api()->reconcile_begin(engine, to_lu_str(name), to_lu_str(now), &session, &step.m) != LU_OK) return r;
    json::object s = parse_step(step.view());
    while (s.at("type").as_string() == "update" && r.updates < 1000) {
        ++r.updates;
        static const char *outcomes[] = {R"({"ok":true})", R"({"runFailure":{"message":"exit 1","exitCode":1}})",
                                         R"({"infraFailure":"boom"})", R"({"ok":true})"};
        const char *outcome = outcomes[choice % 4];
        choice = choice * 1103515245u + 12345u;
        Message next;
        if (api()->reconcile_continue(session, to_lu_str(outcome), to_lu_str(now), &next.m) != LU_OK)
            invariant_broken("reconcile_continue refused a valid outcome", next.view());
        s = parse_step(next.view());
    }
    if (s.at("type").as_string() == "done") r.status_changed = s.at("statusChanged").as_bool();
    api()->reconcile_end(session);
    return r;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
    // The seed corpus refers to this folder as basePath.
    std::filesystem::create_directories(kRoot / "src" / "sub");
    std::ofstream(kRoot / "src" / "a.txt") << "a";
    std::ofstream(kRoot / "src" / "sub" / "b.txt") << "b";
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
    const std::string_view input(reinterpret_cast<const char *>(data), size);
    lu_engine *engine = nullptr;
    lu_engine_host host{sizeof(lu_engine_host), nullptr, nullptr};
    Message error;
    if (api()->create(&host, to_lu_str(R"({"startTime":"2026-01-01T00:00:00.000000Z"})"), &engine, &error.m) != LU_OK)
        invariant_broken("create failed", error.view());

    std::set<std::string> due;
    std::uint32_t choice = static_cast<std::uint32_t>(size);
    std::size_t start = 0;
    while (start < input.size()) {
        std::size_t end = input.find('\0', start);
        if (end == std::string_view::npos) end = input.size();
        const std::string_view record = input.substr(start, end - start);
        start = end + 1;
        if (record.empty()) continue;
        const std::string_view body = record.substr(1);
        if (record.front() != 'd' && !may_feed(record.front() == 'R' ? std::string_view(rehashed(body)) : body))
            continue;
        Message result;
        switch (record.front()) {
        case 'u':
            api()->upsert(engine, to_lu_str(body), &result.m);
            collect_due(result.view(), due);
            break;
        case 'v': api()->validate(engine, to_lu_str(body), &result.m); break;
        case 'r': api()->restore(engine, to_lu_str(body), &result.m); break;
        case 'R': {
            const std::string fixed = rehashed(body);
            api()->restore(engine, to_lu_str(fixed), &result.m);
            break;
        }
        case 'd': {
            const auto slash = body.find('/');
            if (slash == std::string_view::npos) break;
            api()->remove(engine, to_lu_str(body.substr(0, slash)), to_lu_str(body.substr(slash + 1)), &result.m);
            collect_due(result.view(), due);
            break;
        }
        default: break;
        }
    }
    due.insert("lu");
    for (const auto &name : due) {
        reconcile(engine, name, choice);
        const Reconciled again = reconcile(engine, name, choice);
        if (again.updates == 0 && again.status_changed) invariant_broken("status changed with nothing new", name);
    }

    Message blob;
    if (api()->snapshot(engine, &blob.m) != LU_OK) invariant_broken("snapshot failed", blob.view());
    Message restore_error;
    if (api()->restore(engine, to_lu_str(blob.view()), &restore_error.m) != LU_OK)
        invariant_broken("own snapshot refused", restore_error.view());
    api()->destroy(engine);
    return 0;
}
