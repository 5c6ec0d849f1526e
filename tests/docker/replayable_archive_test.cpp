// The archive an updater may send twice (updaters/shared/replayable_archive.hpp).
#include "updaters/shared/replayable_archive.hpp"

#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <cstring>
#include <stdexcept>
#include <string>

using liveupdate::common::ArchiveReadFn;
using liveupdate::updaters::ReplayableArchive;

namespace {

// A one-pass source over text, counting what it handed out and its rewinds.
struct Source {
    std::string text;
    std::size_t offset = 0;
    std::size_t handed = 0;
    std::size_t largest_ask = 0;
    int rewinds = 0;

    ArchiveReadFn reader() {
        return [this](void *buffer, std::size_t capacity) -> std::int64_t {
            largest_ask = std::max(largest_ask, capacity);
            const std::size_t n = std::min(capacity, text.size() - offset);
            if (n > 0) std::memcpy(buffer, text.data() + offset, n);
            offset += n;
            handed += n;
            return static_cast<std::int64_t>(n);
        };
    }
    bool rewind() {
        ++rewinds;
        offset = 0;
        return true;
    }
};

std::string read_n(const ArchiveReadFn &in, std::size_t want) {
    std::string out(want, '\0');
    std::size_t got = 0;
    while (got < want) {
        const auto n = in(out.data() + got, std::min<std::size_t>(want - got, 777));
        if (n <= 0) break;
        got += static_cast<std::size_t>(n);
    }
    out.resize(got);
    return out;
}

std::string read_all(const ArchiveReadFn &in) {
    std::string out;
    char buffer[1000];
    for (std::int64_t n; (n = in(buffer, sizeof buffer)) > 0;) out.append(buffer, static_cast<std::size_t>(n));
    return out;
}

std::string pattern(std::size_t size) {
    std::string text(size, '\0');
    for (std::size_t i = 0; i < size; ++i) text[i] = static_cast<char>('a' + (i * 7 + i / 251) % 26);
    return text;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(replayable_archive)

BOOST_AUTO_TEST_CASE(without_a_rewind_a_later_pass_replays_what_was_read_then_goes_on) {
    Source source{pattern(std::size_t{2500} * 1000)};
    ReplayableArchive archive(source.reader(), {});
    BOOST_TEST(read_n(archive.pass(), 1234567) == source.text.substr(0, 1234567));
    BOOST_TEST((read_all(archive.pass()) == source.text));
    BOOST_TEST((read_all(archive.pass()) == source.text));
    BOOST_TEST(source.handed == source.text.size());  // the source was read once, whatever the passes
}

BOOST_AUTO_TEST_CASE(with_a_rewind_a_later_pass_starts_the_source_again) {
    Source source{pattern(std::size_t{50} * 1000)};
    ReplayableArchive archive(source.reader(), [&source] { return source.rewind(); });
    BOOST_TEST(read_n(archive.pass(), 1000) == source.text.substr(0, 1000));
    BOOST_TEST((read_all(archive.pass()) == source.text));
    BOOST_TEST(source.rewinds == 1);
    BOOST_TEST((read_all(archive.pass()) == source.text));
    BOOST_TEST(source.rewinds == 2);
}

// A large file's data is read into the reader's buffer, not copied from the read-ahead.
BOOST_AUTO_TEST_CASE(a_large_read_fills_the_readers_buffer_from_the_source_and_is_kept) {
    Source source{pattern(std::size_t{5} << 20)};
    ReplayableArchive archive(source.reader(), {});
    const auto first = archive.pass();
    std::string read = read_n(first, 777);
    std::string big(std::size_t{3} << 19, '\0');
    for (std::int64_t n; (n = first(big.data(), big.size())) > 0;) read.append(big.data(), static_cast<std::size_t>(n));
    BOOST_TEST((read == source.text));
    BOOST_TEST(source.largest_ask == big.size());
    BOOST_TEST((read_all(archive.pass()) == source.text));  // what went straight to the reader was kept too
    BOOST_TEST(source.handed == source.text.size());
}

BOOST_AUTO_TEST_CASE(a_pass_that_read_nothing_goes_on_without_a_rewind) {
    Source source{pattern(10)};
    ReplayableArchive archive(source.reader(), [&source] { return source.rewind(); });
    archive.pass();
    BOOST_TEST((read_all(archive.pass()) == source.text));
    BOOST_TEST(source.rewinds == 0);
}

BOOST_AUTO_TEST_CASE(a_rewind_that_fails_is_an_error) {
    Source source{pattern(10)};
    ReplayableArchive archive(source.reader(), [] { return false; });
    read_all(archive.pass());
    BOOST_CHECK_THROW(archive.pass(), std::runtime_error);
}

BOOST_AUTO_TEST_SUITE_END()
