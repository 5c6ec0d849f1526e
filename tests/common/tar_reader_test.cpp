// common/tar_reader: entries and data read from a stream cut anywhere and
// from memory, the empty archive, a failed source told apart from bytes that
// are not a tar.
#define BOOST_TEST_MODULE tar_reader
#include <boost/test/unit_test.hpp>

#include <archive.h>
#include <archive_entry.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "common/tar_reader.hpp"

using liveupdate::common::TarReader;
using liveupdate::common::TarReadError;

namespace {

// A ustar archive of the given regular files, written by libarchive.
std::string tar_of(const std::vector<std::pair<std::string, std::string>> &files) {
    std::vector<char> out(1 << 20);
    std::size_t used = 0;
    archive *w = archive_write_new();
    archive_write_set_format_ustar(w);
    archive_write_open_memory(w, out.data(), out.size(), &used);
    for (const auto &[name, content] : files) {
        archive_entry *e = archive_entry_new();
        archive_entry_set_pathname(e, name.c_str());
        archive_entry_set_filetype(e, AE_IFREG);
        archive_entry_set_perm(e, 0644);
        archive_entry_set_size(e, static_cast<la_int64_t>(content.size()));
        archive_write_header(w, e);
        archive_write_data(w, content.data(), content.size());
        archive_entry_free(e);
    }
    archive_write_close(w);
    archive_write_free(w);
    return {out.data(), used};
}

// A source handing out at most `cut` bytes per read, then failing after `fail_after` bytes when set.
liveupdate::common::ArchiveReadFn source_of(const std::string &bytes, std::size_t cut,
                                            std::size_t fail_after = std::string::npos) {
    auto at = std::make_shared<std::size_t>(0);
    return [bytes, cut, fail_after, at](void *buffer, std::size_t capacity) -> std::int64_t {
        if (*at >= fail_after) return -1;
        const std::size_t n = std::min({cut, capacity, bytes.size() - *at});
        std::memcpy(buffer, bytes.data() + *at, n);
        *at += n;
        return static_cast<std::int64_t>(n);
    };
}

std::vector<std::pair<std::string, std::string>> read_all(TarReader &reader) {
    std::vector<std::pair<std::string, std::string>> found;
    while (archive_entry *entry = reader.next()) {
        std::string content;
        char chunk[7];
        for (std::size_t got; (got = reader.read_data(chunk, sizeof chunk)) != 0;) content.append(chunk, got);
        found.emplace_back(archive_entry_pathname(entry), content);
    }
    return found;
}

}  // namespace

BOOST_AUTO_TEST_CASE(entries_and_data_come_back_from_a_stream_cut_anywhere_and_from_memory) {
    const std::vector<std::pair<std::string, std::string>> files{{"a.txt", "hello"},
                                                                 {"d/b.bin", std::string(3000, 'x')}};
    const std::string bytes = tar_of(files);
    for (const std::size_t cut : {std::size_t{1}, std::size_t{511}, std::size_t{1} << 20}) {
        TarReader reader(source_of(bytes, cut));
        BOOST_TEST((read_all(reader) == files));
        BOOST_TEST(!reader.source_failed());
    }
    TarReader from_memory{std::string_view(bytes)};
    BOOST_TEST((read_all(from_memory) == files));
}

BOOST_AUTO_TEST_CASE(an_empty_stream_is_an_empty_archive) {
    TarReader reader(source_of("", 512));
    BOOST_TEST(reader.next() == nullptr);
}

BOOST_AUTO_TEST_CASE(a_failed_source_is_marked_and_named_apart_from_bytes_that_are_not_a_tar) {
    const std::string bytes = tar_of({{"a.txt", std::string(5000, 'y')}});
    // Past the first header, inside the file's data.
    TarReader reader(source_of(bytes, 512, 4096));
    try {
        read_all(reader);
        BOOST_FAIL("a source that fails must fail the reading");
    } catch (const TarReadError &e) {
        BOOST_TEST(std::string(e.what()).find("its source failed") != std::string::npos, e.what());
    }
    BOOST_TEST(reader.source_failed());

    const std::string not_tar(2048, 'z');
    try {
        TarReader reader{std::string_view(not_tar)};
        read_all(reader);
        BOOST_FAIL("bytes that are not a tar must fail the reading");
    } catch (const TarReadError &e) {
        BOOST_TEST(!std::string(e.what()).empty());
        BOOST_TEST(std::string(e.what()).find("its source failed") == std::string::npos, e.what());
    }
}

BOOST_AUTO_TEST_CASE(an_entry_name_loses_leading_dot_slashes_and_slashes) {
    using liveupdate::common::tar_entry_name;
    BOOST_TEST(tar_entry_name("./a/b/") == "a/b");
    BOOST_TEST(tar_entry_name("/a/b") == "a/b");
    BOOST_TEST(tar_entry_name("././//a") == "a");
    BOOST_TEST(tar_entry_name("a/./b") == "a/./b");
    BOOST_TEST(tar_entry_name("./") == "");
    BOOST_TEST(tar_entry_name(nullptr) == "");
}
