#include <archive.h>
#include <archive_entry.h>

#include <cstdint>
#include <string>

#include <boost/test/unit_test.hpp>

#include "common/tar_reader.hpp"
#include "host/core/tar_header.hpp"

using namespace liveupdate::host;

namespace {

struct ReadBack {
    std::string path, link;
    std::int64_t size = 0, mtime = 0;
    mode_t type = 0;
    unsigned perm = 0;
};

// The header blocks, content and end marker of one entry, read by libarchive.
ReadBack read_back(const TarEntry &entry, const std::string &content = "") {
    std::string tar;
    append_tar_header(tar, entry);
    BOOST_TEST_REQUIRE(tar.size() % kTarBlock == 0);
    tar += content;
    tar.append(tar_padding(static_cast<std::int64_t>(content.size())) + 2 * kTarBlock, '\0');
    liveupdate::common::TarReader reader{std::string_view(tar)};
    // Not next(): a warning (ARCHIVE_WARN) about a header we wrote fails too.
    archive_entry *e = nullptr;
    const int rc = archive_read_next_header(reader.get(), &e);
    BOOST_TEST_REQUIRE(rc == ARCHIVE_OK, std::string(entry.name) + ": " + std::to_string(rc));
    return ReadBack{archive_entry_pathname(e), archive_entry_symlink(e) != nullptr ? archive_entry_symlink(e) : "",
                    archive_entry_size(e),     archive_entry_mtime(e),
                    archive_entry_filetype(e), static_cast<unsigned>(archive_entry_perm(e))};
}

std::string repeated(const std::string &part, int times) {
    std::string out;
    for (int i = 0; i < times; ++i) out += part;
    return out;
}

TarEntry file_entry(std::string_view name, std::int64_t size, std::int64_t mtime = 1'700'000'000,
                    std::uint32_t perm = 0644) {
    return TarEntry{name, TarType::file, perm, size, mtime, {}};
}

TarEntry folder_entry(std::string_view name) { return TarEntry{name, TarType::directory, 0755, 0, 1'700'000'000, {}}; }

TarEntry link_entry(std::string_view name, std::string_view target) {
    return TarEntry{name, TarType::symlink, 0777, 0, 1'700'000'000, target};
}

}  // namespace

BOOST_AUTO_TEST_SUITE(tar_header)

BOOST_AUTO_TEST_CASE(a_plain_entry_is_one_ustar_block) {
    std::string tar;
    append_tar_header(tar, file_entry("app/a.txt", 5, 1'700'000'000, 0640));
    BOOST_TEST(tar.size() == kTarBlock);
    BOOST_TEST(tar.substr(257, 6) == std::string("ustar\0", 6));
    const ReadBack r = read_back(file_entry("app/a.txt", 5, 1'700'000'000, 0640), "alpha");
    BOOST_TEST(r.path == "app/a.txt");
    BOOST_TEST(r.type == AE_IFREG);
    BOOST_TEST(r.perm == 0640u);
    BOOST_TEST(r.size == 5);
    BOOST_TEST(r.mtime == 1'700'000'000);
}

BOOST_AUTO_TEST_CASE(a_directory_gets_a_trailing_slash_and_a_symlink_its_target) {
    BOOST_TEST(read_back(folder_entry("app/bin")).path == "app/bin/");
    const ReadBack link = read_back(link_entry("app/l", "a"));
    BOOST_TEST(link.type == AE_IFLNK);
    BOOST_TEST(link.link == "a");
}

BOOST_AUTO_TEST_CASE(a_path_over_100_bytes_is_split_into_prefix_and_name) {
    const std::string path = repeated("folder-name/", 12) + "file.txt";  // 152 bytes
    std::string tar;
    append_tar_header(tar, file_entry(path, 1));
    BOOST_TEST(tar.size() == kTarBlock);
    BOOST_TEST(read_back(file_entry(path, 1), "x").path == path);
}

BOOST_AUTO_TEST_CASE(what_ustar_cannot_hold_goes_into_a_pax_header) {
    const std::string deep = repeated("d/", 150) + repeated("n", 120);  // no split fits
    const std::string wide = "app/caf\xc3\xa9.txt";
    const std::string far_target = repeated("../", 50) + "target";
    for (const std::string &path : {deep, wide}) {
        std::string tar;
        append_tar_header(tar, file_entry(path, 2));
        BOOST_TEST(tar.size() > kTarBlock);
        BOOST_TEST(read_back(file_entry(path, 2), "ab").path == path);
    }
    BOOST_TEST(read_back(link_entry("l", far_target)).link == far_target);
    const std::int64_t huge = std::int64_t{9} << 30;  // 9 GiB: over ustar's 8 GiB
    BOOST_TEST(read_back(file_entry("big", huge)).size == huge);
    BOOST_TEST(read_back(file_entry("old", 0, -86'400)).mtime == -86'400);
}

BOOST_AUTO_TEST_CASE(padding_ends_the_last_block) {
    BOOST_TEST(tar_padding(0) == 0u);
    BOOST_TEST(tar_padding(1) == 511u);
    BOOST_TEST(tar_padding(512) == 0u);
    BOOST_TEST(tar_padding(513) == 511u);
}

BOOST_AUTO_TEST_SUITE_END()
