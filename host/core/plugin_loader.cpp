#include "host/core/plugin_loader.hpp"

#include <dlfcn.h>
#include <elf.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstddef>
#include <cstring>
#include <fstream>
#include <optional>
#include <system_error>

#include "host/core/abi_range.hpp"
#include "host/core/host_error.hpp"
#include "host/core/log.hpp"
#include "host/core/plugin_probe.hpp"

namespace liveupdate::host {
namespace fs = std::filesystem;

namespace {

constexpr const char *kLoadFailed = "cannot load plugin";

// A uniquely named copy of the file in the temp folder, removed on destruction.
class PrivateCopy {
public:
    explicit PrivateCopy(const fs::path &original) {
        std::string pattern = (fs::temp_directory_path() / "lu-host-plugin-XXXXXX.so").string();
        int fd = mkstemps(pattern.data(), 3);
        if (fd < 0) {
            throw PluginLoadError(kLoadFailed, original.string(),
                                  std::string("cannot create a private copy: ") + std::strerror(errno));
        }
        close(fd);
        path_ = pattern;
        std::error_code ec;
        fs::copy_file(original, path_, fs::copy_options::overwrite_existing, ec);
        if (ec) {
            fs::remove(path_);
            throw PluginLoadError(kLoadFailed, original.string(),
                                  "cannot copy to " + path_.string() + ": " + ec.message());
        }
    }
    PrivateCopy(const PrivateCopy &) = delete;
    PrivateCopy &operator=(const PrivateCopy &) = delete;
    ~PrivateCopy() {
        std::error_code ignored_because_best_effort;
        fs::remove(path_, ignored_because_best_effort);
    }
    const fs::path &path() const { return path_; }

private:
    fs::path path_;
};

// dlopen maps segments without checking that the file holds them, and the
// first touch of a missing page kills the process (SIGBUS): a plugin
// truncated by an interrupted build must be refused before that.
template <typename Ehdr, typename Phdr>
void require_segments_in_file(std::ifstream &in, const fs::path &file, std::uintmax_t size) {
    Ehdr header{};
    in.seekg(0);
    in.read(reinterpret_cast<char *>(&header), sizeof header);
    const std::uintmax_t table_end =
        static_cast<std::uintmax_t>(header.e_phoff) + std::uintmax_t{header.e_phnum} * sizeof(Phdr);
    if (!in || header.e_phentsize != sizeof(Phdr) || table_end > size) {
        throw PluginLoadError(kLoadFailed, file.string(), "truncated ELF file (" + std::to_string(size) + " bytes)");
    }
    for (unsigned i = 0; i < header.e_phnum; ++i) {
        Phdr segment{};
        in.seekg(static_cast<std::streamoff>(header.e_phoff + i * sizeof(Phdr)));
        in.read(reinterpret_cast<char *>(&segment), sizeof segment);
        const std::uintmax_t end = static_cast<std::uintmax_t>(segment.p_offset) + segment.p_filesz;
        if (!in || (segment.p_type == PT_LOAD && end > size)) {
            throw PluginLoadError(kLoadFailed, file.string(),
                                  "truncated: a load segment ends at byte " + std::to_string(end) + ", the file has " +
                                      std::to_string(size) + " (still being written?)");
        }
    }
}

// Reads to_read (maybe a private copy); errors name file. Files that are not
// ELF are left to dlopen, which refuses them cleanly.
void require_complete_elf(const fs::path &to_read, const fs::path &file) {
    std::ifstream in(to_read, std::ios::binary);
    unsigned char ident[EI_NIDENT] = {};
    in.read(reinterpret_cast<char *>(ident), sizeof ident);
    if (!in || std::memcmp(ident, ELFMAG, SELFMAG) != 0) return;
    std::error_code ec;
    const std::uintmax_t size = fs::file_size(to_read, ec);
    if (ec) throw PluginLoadError(kLoadFailed, file.string(), "cannot read its size: " + ec.message());
    if (ident[EI_CLASS] == ELFCLASS64) require_segments_in_file<Elf64_Ehdr, Elf64_Phdr>(in, file, size);
    if (ident[EI_CLASS] == ELFCLASS32) require_segments_in_file<Elf32_Ehdr, Elf32_Phdr>(in, file, size);
}

std::string safe(const char *text) { return text == nullptr ? std::string("?") : std::string(text); }

PluginIdentity identity_of(const lu_plugin_info *info, const fs::path &file) {
    if (info == nullptr) {
        throw PluginLoadError(kLoadFailed, file.string(), "the entry symbol returned no plugin info");
    }
    if (info->struct_size < sizeof(lu_plugin_info)) {
        throw PluginLoadError(kLoadFailed, file.string(),
                              "plugin info too small (" + std::to_string(info->struct_size) + " bytes)");
    }
    return PluginIdentity{safe(info->kind), safe(info->name), safe(info->version), info->abi_min, info->abi_max};
}

// The smallest table of ABI 1 we accept: tables only grow at the end, so a
// table that reaches its last required member is usable.
template <typename Api>
constexpr std::size_t minimum_table_size() {
    return offsetof(Api, free_message) + sizeof(Api::free_message);
}

// Learns the plugin's range from its info, then asks the entry point for the
// highest version it shares with the host; refuses a plugin sharing none.
template <typename Api, typename Entry>
const Api *negotiate(const LoadedLibrary &library, const char *entry_symbol, const char *expected_kind,
                     PluginIdentity &out_identity) {
    auto entry = reinterpret_cast<Entry>(library.symbol(entry_symbol));
    const lu_plugin_info *info = nullptr;
    const Api *api = entry(kHostAbi.max, &info);
    const std::string file = library.file().string();
    out_identity = identity_of(info, library.file());
    if (out_identity.kind != expected_kind) {
        throw PluginLoadError(kLoadFailed, file,
                              "plugin " + out_identity.name + " is of kind \"" + out_identity.kind + "\", expected \"" +
                                  expected_kind + "\"");
    }
    const AbiRange served{out_identity.abi_min, out_identity.abi_max};
    const std::optional<uint32_t> chosen = highest_common_abi(kHostAbi, served);
    if (!chosen) {  // H02
        throw PluginLoadError(kLoadFailed, file,
                              "plugin " + out_identity.name + " serves ABI " + std::to_string(served.min) + ".." +
                                  std::to_string(served.max) + ", host needs " + kHostAbi.text());
    }
    if (*chosen != kHostAbi.max) api = entry(*chosen, &info);
    if (api == nullptr) {
        throw PluginLoadError(kLoadFailed, file,
                              "plugin " + out_identity.name + " serves ABI " + served.text() +
                                  " but returned no table for ABI " + std::to_string(*chosen));
    }
    if (api->struct_size < minimum_table_size<Api>() || api->abi_version != *chosen) {
        throw PluginLoadError(kLoadFailed, file,
                              "plugin " + out_identity.name + " returned a table of ABI " +
                                  std::to_string(api->abi_version) + " and " + std::to_string(api->struct_size) +
                                  " bytes; host asked for ABI " + std::to_string(*chosen) + " and needs at least " +
                                  std::to_string(minimum_table_size<Api>()) + " bytes");
    }
    return api;
}

void require(bool present, const fs::path &file, const char *member) {
    if (!present) {
        throw PluginLoadError(kLoadFailed, file.string(), std::string("the plugin's function table lacks ") + member);
    }
}

}  // namespace

std::shared_ptr<LoadedLibrary> LoadedLibrary::load(const fs::path &file, const PluginLoadOptions &options,
                                                   std::string_view kind) {
    std::error_code stat_error;
    const fs::file_status status = fs::status(file, stat_error);
    if (!fs::exists(status)) {
        throw PluginLoadError(kLoadFailed, file.string(), "no such file");
    }
    if (fs::is_directory(status)) {
        throw PluginLoadError(kLoadFailed, file.string(), "is a directory, not a shared object");
    }
    std::optional<PrivateCopy> copy;
    if (options.private_copy) copy.emplace(file);
    const fs::path &to_open = copy ? copy->path() : file;
    require_complete_elf(to_open, file);
    if (!options.prober.empty()) probe_plugin_in_child(options.prober, kind, to_open, file);

    boost::dll::shared_library library;
    boost::dll::fs::error_code ec;
    // rtld_now: a plugin with unresolved symbols fails here, not mid-update.
    library.load(boost::dll::fs::path(to_open.string()),
                 boost::dll::load_mode::rtld_now | boost::dll::load_mode::rtld_local, ec);
    if (ec || !library.is_loaded()) {
        const char *dl_reason = dlerror();
        std::string reason = dl_reason != nullptr ? dl_reason : ec.message();
        // The copy's name means nothing to the user: say the original's.
        if (copy) {
            const std::string copy_name = copy->path().string();
            for (auto at = reason.find(copy_name); at != std::string::npos; at = reason.find(copy_name, at)) {
                reason.replace(at, copy_name.size(), file.string());
            }
        }
        throw PluginLoadError(kLoadFailed, file.string(), "not a loadable shared object (" + reason + ")");
    }
    log::debug("loaded " + file.string() + (copy ? " from private copy " + copy->path().string() : ""));
    return std::shared_ptr<LoadedLibrary>(new LoadedLibrary(file, std::move(library)));
}

void *LoadedLibrary::symbol(const char *name) const {
    if (!library_.has(name)) {
        throw PluginLoadError(kLoadFailed, file_.string(), std::string("missing entry symbol ") + name);
    }
    return reinterpret_cast<void *>(library_.get<void()>(name));
}

std::shared_ptr<const LiveUpdatePlugin> LiveUpdatePlugin::load(const fs::path &file, const PluginLoadOptions &options) {
    auto library = LoadedLibrary::load(file, options);
    PluginIdentity identity;
    const auto *api = negotiate<lu_liveupdate_api, lu_liveupdate_entry_fn>(*library, LU_LIVEUPDATE_ENTRY_SYMBOL,
                                                                           "liveupdate", identity);
    require(api->create && api->destroy, file, "create/destroy");
    require(api->validate && api->upsert && api->remove, file, "validate/upsert/remove");
    require(api->reconcile_begin && api->reconcile_continue && api->reconcile_end, file, "reconcile_*");
    require(api->snapshot && api->restore && api->free_message, file, "snapshot/restore/free_message");
    return std::shared_ptr<const LiveUpdatePlugin>(new LiveUpdatePlugin(std::move(library), api, std::move(identity)));
}

std::shared_ptr<const UpdaterPlugin> UpdaterPlugin::load(const fs::path &file, const PluginLoadOptions &options) {
    auto library = LoadedLibrary::load(file, options, "updater");
    PluginIdentity identity;
    const auto *api =
        negotiate<lu_updater_api, lu_updater_entry_fn>(*library, LU_UPDATER_ENTRY_SYMBOL, "updater", identity);
    require(api->create && api->destroy && api->update && api->free_message, file,
            "create/destroy/update/free_message");
    return std::shared_ptr<const UpdaterPlugin>(new UpdaterPlugin(std::move(library), api, std::move(identity)));
}

}  // namespace liveupdate::host
