#include "updaters/docker/tar_file_reader.hpp"

#include <archive.h>
#include <archive_entry.h>

#include <stdexcept>

#include "common/tar_reader.hpp"

namespace liveupdate::docker {

std::optional<std::string> first_file_in_tar(std::string_view tar) {
    try {
        common::TarReader reader(tar);
        while (archive_entry *entry = reader.next()) {
            if (archive_entry_filetype(entry) != AE_IFREG) continue;
            std::string content;
            char buffer[16 * 1024];
            for (std::size_t got; (got = reader.read_data(buffer, sizeof buffer)) != 0;) content.append(buffer, got);
            return content;
        }
        return std::nullopt;
    } catch (const common::TarReadError &e) {
        throw std::runtime_error(std::string("not a readable tar: ") + e.what());
    }
}

}  // namespace liveupdate::docker
