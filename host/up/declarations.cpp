#include "host/up/declarations.hpp"
#include "common/mutex.hpp"

#include <algorithm>
#include <filesystem>

#include "common/json_fields.hpp"

namespace liveupdate::host::up {
namespace json = boost::json;

void Declarations::track(const std::string &origin) {
    common::MutexLock lock(mutex_);
    keys_of_file_[origin];
}

Declarations::Declared Declarations::declare(const DeclaredObject &d, const std::string &text) {
    const ObjectKey key{d.kind, d.name};
    common::MutexLock lock(mutex_);
    auto &keys = keys_of_file_[d.file];
    if (std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(key);
    auto &decls = declarations_[key];
    std::erase_if(decls, [&](const DeclaredObject &o) { return o.file == d.file; });
    decls.push_back(d);
    Declared out;
    auto found = in_use_.find(key);
    if (found != in_use_.end()) {
        if (found->second.file == d.file && found->second.text == text) return Declared{false, {}};
        if (found->second.file != d.file && decls.size() > 1) out.replaced_from = found->second.file;
    }
    in_use_[key] = InUse{d.file, text};
    return out;
}

Declarations::Replaced Declarations::replace(const std::string &origin, const FileLoad &load) {
    Replaced out;
    common::MutexLock lock(mutex_);
    std::set<ObjectKey> now_declared;
    for (const auto &o : load.objects) now_declared.insert(ObjectKey{o.kind, o.name});
    for (const auto &key : keys_of_file_[origin]) {
        if (now_declared.count(key) != 0) continue;
        auto &decls = declarations_[key];
        const bool in_use = !decls.empty() && decls.back().file == origin;
        std::erase_if(decls, [&](const DeclaredObject &o) { return o.file == origin; });
        if (decls.empty()) {
            declarations_.erase(key);
            out.gone.push_back(key);
        } else if (in_use) {
            out.fallbacks.push_back(decls.back());
        }
    }
    keys_of_file_[origin].assign(now_declared.begin(), now_declared.end());
    std::error_code ec;
    if (load.objects.empty() && !std::filesystem::exists(origin, ec)) keys_of_file_.erase(origin);
    return out;
}

void Declarations::remove(const ObjectKey &key) {
    common::MutexLock lock(mutex_);
    in_use_.erase(key);
    declarations_.erase(key);
    if (key.kind == "LiveUpdate") rejected_.erase(key.name);
}

std::optional<json::object> Declarations::declared(const ObjectKey &key) const {
    common::MutexLock lock(mutex_);
    auto found = in_use_.find(key);
    if (found == in_use_.end()) return std::nullopt;
    return common::expect_object(common::parse_limited(found->second.text), found->first.text());
}

std::optional<std::string> Declarations::origin_of(const ObjectKey &key) const {
    common::MutexLock lock(mutex_);
    auto found = in_use_.find(key);
    if (found == in_use_.end()) return std::nullopt;
    return found->second.file;
}

std::set<std::string> Declarations::origins_in(const std::string &dir) const {
    std::set<std::string> out;
    common::MutexLock lock(mutex_);
    for (const auto &[file, keys] : keys_of_file_)
        if (std::filesystem::path(file).parent_path() == dir) out.insert(file);
    return out;
}

std::size_t Declarations::origin_count() const {
    common::MutexLock lock(mutex_);
    return keys_of_file_.size();
}

void Declarations::reject(const std::string &live_update, Rejection why) {
    common::MutexLock lock(mutex_);
    rejected_[live_update] = std::move(why);
}

void Declarations::admit(const std::string &live_update) {
    common::MutexLock lock(mutex_);
    rejected_.erase(live_update);
}

std::optional<Rejection> Declarations::rejection(const std::string &live_update) const {
    common::MutexLock lock(mutex_);
    auto found = rejected_.find(live_update);
    if (found == rejected_.end()) return std::nullopt;
    return found->second;
}

std::map<std::string, Rejection> Declarations::rejections() const {
    common::MutexLock lock(mutex_);
    return rejected_;
}

}  // namespace liveupdate::host::up
