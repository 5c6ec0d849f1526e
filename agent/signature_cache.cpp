#include "agent/signature_cache.hpp"

#include <algorithm>

namespace liveupdate::agent {

FileIdentity identity_of(const struct stat &st) {
    constexpr std::int64_t kNs = 1'000'000'000;
    return {static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino),
            static_cast<std::int64_t>(st.st_size), st.st_mtim.tv_sec * kNs + st.st_mtim.tv_nsec,
            st.st_ctim.tv_sec * kNs + st.st_ctim.tv_nsec};
}

void SignatureCache::forget(std::map<std::string, Entry>::iterator it) {
    bytes_ -= it->second.signature.size();
    entries_.erase(it);
}

void SignatureCache::remember(const std::string &path, const FileIdentity &identity, std::string signature) {
    if (auto it = entries_.find(path); it != entries_.end()) forget(it);
    if (signature.size() > max_bytes_) return;
    while (bytes_ + signature.size() > max_bytes_ && !entries_.empty())
        forget(std::min_element(entries_.begin(), entries_.end(),
                                [](const auto &a, const auto &b) { return a.second.added < b.second.added; }));
    bytes_ += signature.size();
    entries_[path] = Entry{identity, std::move(signature), ++counter_};
}

std::optional<std::string> SignatureCache::find(const std::string &path, const FileIdentity &identity) {
    const auto it = entries_.find(path);
    if (it == entries_.end()) return std::nullopt;
    if (!(it->second.identity == identity)) {
        forget(it);
        return std::nullopt;
    }
    return it->second.signature;
}

}  // namespace liveupdate::agent
