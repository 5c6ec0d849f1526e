#include "common/agent_client/agent_binary.hpp"

#include <archive.h>
#include <archive_entry.h>
#include <dlfcn.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <vector>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "common/agent_protocol/frame.hpp"
#include "common/archive_errors.hpp"
#include "common/install_layout.hpp"

namespace liveupdate::agent_client {
namespace {

namespace fs = std::filesystem;

constexpr const char *kAgentFolder = ".lu-agent";

std::vector<fs::path> default_places() {
    // The running lu-host's own layout first: the daemon loads the updaters
    // from private copies in the temp folder, where nothing of ours lies.
    std::vector<fs::path> places;
    if (const fs::path exe = common::running_executable(); !exe.empty()) places = common::agent_places(exe);
    // An updater loaded by another program: lu-agent beside it (installed) or
    // in ../bin from it (the build tree).
    Dl_info info{};
    if (::dladdr(reinterpret_cast<void *>(&load_agent_binary), &info) != 0 && info.dli_fname != nullptr) {
        const fs::path here = fs::absolute(info.dli_fname).parent_path();
        places.push_back(here / common::kAgentFileName);
        places.push_back(here.parent_path() / "bin" / common::kAgentFileName);
    }
    return places;
}

std::string hex16(std::uint64_t value) {
    char text[17];
    std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(value));
    return text;
}

}  // namespace

AgentBinary load_agent_binary(const std::string &configured, std::string_view how_to_set) {
    std::vector<fs::path> places;
    if (!configured.empty())
        places.emplace_back(configured);
    else
        places = default_places();
    std::string looked;
    for (const auto &place : places) {
        std::ifstream in(place, std::ios::binary);
        if (!in) {
            looked += (looked.empty() ? "" : ", ") + place.string();
            continue;
        }
        std::stringstream content;
        content << in.rdbuf();
        AgentBinary binary{place.string(), content.str(), {}};
        if (binary.content.empty()) throw std::runtime_error("the lu-agent binary " + place.string() + " is empty");
        binary.container_path = std::string("/") + kAgentFolder + "/" + common::kAgentFileName + "-" +
                                std::to_string(agent_protocol::kProtocolVersion) + "-" +
                                hex16(XXH3_64bits(binary.content.data(), binary.content.size()));
        return binary;
    }
    throw std::runtime_error("no lu-agent binary found (looked at " + (looked.empty() ? "nothing" : looked) + "); " +
                             std::string(how_to_set));
}

std::string agent_archive(const AgentBinary &binary) {
    std::unique_ptr<archive, decltype(&archive_write_free)> writer(archive_write_new(), &archive_write_free);
    std::unique_ptr<archive_entry, decltype(&archive_entry_free)> entry(archive_entry_new(), &archive_entry_free);
    archive_write_set_format_pax_restricted(writer.get());
    archive_write_set_bytes_per_block(writer.get(), 0);
    std::vector<char> buffer(binary.content.size() + std::size_t{64} * 1024);
    std::size_t used = 0;
    if (archive_write_open_memory(writer.get(), buffer.data(), buffer.size(), &used) != ARCHIVE_OK)
        throw std::runtime_error(std::string("building the lu-agent archive: ") +
                                 common::archive_error_text(writer.get()));
    archive_entry_set_pathname(entry.get(), kAgentFolder);
    archive_entry_set_filetype(entry.get(), AE_IFDIR);
    archive_entry_set_perm(entry.get(), 0755);
    archive_write_header(writer.get(), entry.get());
    archive_entry_clear(entry.get());
    archive_entry_set_pathname(entry.get(), binary.container_path.substr(1).c_str());
    archive_entry_set_filetype(entry.get(), AE_IFREG);
    archive_entry_set_perm(entry.get(), 0755);
    archive_entry_set_size(entry.get(), static_cast<la_int64_t>(binary.content.size()));
    if (archive_write_header(writer.get(), entry.get()) != ARCHIVE_OK ||
        archive_write_data(writer.get(), binary.content.data(), binary.content.size()) < 0 ||
        archive_write_close(writer.get()) != ARCHIVE_OK)
        throw std::runtime_error(std::string("building the lu-agent archive: ") +
                                 common::archive_error_text(writer.get()));
    return std::string(buffer.data(), used);
}

}  // namespace liveupdate::agent_client
