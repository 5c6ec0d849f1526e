// The one XXH3-64 of a file read through a descriptor (common/file_hash):
// whatever the buffer and however reads split the bytes, the digest is
// XXH3_64bits over the whole content, the value journals and the agent
// protocol hold; from the offset or from the start; a failed read says its
// errno, a caller can stop it, and a copy gets the very bytes hashed.
#define BOOST_TEST_MODULE file_hash
#include <fcntl.h>
#include <unistd.h>

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <span>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "common/file_hash/file_hash.hpp"
#include "common/unique_fd.hpp"
#include "tests/support/temp_dir.hpp"

namespace fh = liveupdate::file_hash;
using liveupdate::common::UniqueFd;

namespace {

// Bytes that differ from chunk to chunk, so a chunk hashed twice or skipped changes the digest.
std::string content_of(std::size_t size) {
    std::string out(size, '\0');
    std::uint32_t x = 2463534242u;
    for (char &c : out) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        c = static_cast<char>(x);
    }
    return out;
}

std::uint64_t whole(const std::string &content) { return XXH3_64bits(content.data(), content.size()); }

// The digests of a file holding content, read through a buffer of buffer_size bytes: hash_fd's, then
// hash_fd_from_start's once the offset is past the middle (it reads from the start and leaves the offset be).
std::pair<fh::FdHash, fh::FdHash> hashes_of_file(const std::string &content, std::size_t buffer_size) {
    liveupdate::test::TempDir dir{"lu-file-hash"};
    const std::string path = dir.write("f", content);
    const UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    BOOST_REQUIRE(fd.get() >= 0);
    std::vector<char> buffer(buffer_size);
    const fh::FdHash from_offset = fh::hash_fd(fd.get(), buffer);
    const auto middle = static_cast<off_t>(content.size() / 2 + 1);
    BOOST_REQUIRE(::lseek(fd.get(), middle, SEEK_SET) == middle);
    const fh::FdHash from_start = fh::hash_fd_from_start(fd.get(), buffer);
    BOOST_TEST(::lseek(fd.get(), 0, SEEK_CUR) == middle);
    return {from_offset, from_start};
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_file_hashes_as_its_whole_content_whatever_the_buffer) {
    // 64 KiB: lu-agent's guard's stack buffer; 256 KiB: the tree digest's.
    for (const std::size_t chunk : {std::size_t{4096}, std::size_t{64} * 1024, std::size_t{256} * 1024}) {
        for (const std::size_t size : {std::size_t{0}, std::size_t{1}, chunk, chunk + 1, std::size_t{5} << 20}) {
            const std::string content = content_of(size);
            const auto [from_offset, from_start] = hashes_of_file(content, chunk);
            for (const fh::FdHash &got : {from_offset, from_start}) {
                BOOST_TEST(got.error == 0, size << " bytes through " << chunk);
                BOOST_TEST(!got.stopped, size << " bytes through " << chunk);
                BOOST_TEST(got.hash == whole(content), size << " bytes through " << chunk);
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(short_reads_are_hashed_as_they_come) {
    int ends[2];
    BOOST_REQUIRE(::pipe2(ends, O_CLOEXEC) == 0);
    const UniqueFd read_end(ends[0]);
    const std::string content = content_of(std::size_t{1} << 20);
    // Pieces smaller than the buffer and of odd sizes: most reads of the pipe return less than asked.
    std::thread writer([&content, write_end = UniqueFd(ends[1])] {
        for (std::size_t at = 0; at < content.size();) {
            const std::size_t piece = std::min<std::size_t>(content.size() - at, 1000 + at % 3000);
            const auto wrote = ::write(write_end.get(), content.data() + at, piece);
            if (wrote <= 0) return;
            at += static_cast<std::size_t>(wrote);
        }
    });
    std::vector<char> buffer(std::size_t{64} * 1024);
    std::size_t chunks = 0;
    const fh::FdHash got =
        fh::hash_fd(read_end.get(), buffer, [&chunks](std::span<const char>) { return ++chunks, true; });
    writer.join();
    BOOST_TEST(got.error == 0);
    BOOST_TEST(got.hash == whole(content));
    BOOST_TEST(chunks > content.size() / buffer.size(), chunks << " reads");
}

BOOST_AUTO_TEST_CASE(a_failed_read_says_its_errno) {
    liveupdate::test::TempDir dir{"lu-file-hash"};
    const UniqueFd folder(::open(dir.path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    BOOST_REQUIRE(folder.get() >= 0);
    std::vector<char> buffer(4096);
    BOOST_TEST(fh::hash_fd(folder.get(), buffer).error == EISDIR);
    const std::string path = dir.write("f", "content");
    const UniqueFd write_only(::open(path.c_str(), O_WRONLY | O_CLOEXEC));
    BOOST_REQUIRE(write_only.get() >= 0);
    BOOST_TEST(fh::hash_fd(write_only.get(), buffer).error == EBADF);
    BOOST_TEST(fh::hash_fd_from_start(write_only.get(), buffer).error == EBADF);
    // A pipe has no start to read from: refused, not read.
    int ends[2];
    BOOST_REQUIRE(::pipe2(ends, O_CLOEXEC) == 0);
    const UniqueFd read_end(ends[0]), write_end(ends[1]);
    BOOST_TEST(fh::hash_fd_from_start(read_end.get(), buffer).error == ESPIPE);
}

BOOST_AUTO_TEST_CASE(the_caller_stops_it_after_a_chunk) {
    constexpr std::size_t kChunk = 4096;
    const std::string content = content_of(3 * kChunk);
    liveupdate::test::TempDir dir{"lu-file-hash"};
    const std::string path = dir.write("f", content);
    const UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    BOOST_REQUIRE(fd.get() >= 0);
    std::vector<char> buffer(kChunk);
    std::vector<std::size_t> chunks;
    const fh::FdHash got = fh::hash_fd(fd.get(), buffer, [&chunks](std::span<const char> chunk) {
        chunks.push_back(chunk.size());
        return chunks.size() < 2;
    });
    BOOST_TEST(got.stopped);
    BOOST_TEST(got.error == 0);
    BOOST_TEST(chunks == (std::vector<std::size_t>{kChunk, kChunk}));
    // What it read so far, and the rest is still there to read.
    BOOST_TEST(got.hash == whole(content.substr(0, 2 * kChunk)));
    BOOST_TEST(::lseek(fd.get(), 0, SEEK_CUR) == static_cast<off_t>(2 * kChunk));
}

// A copy hashes as it writes (sync back's write_beneath): each chunk handed
// on is the bytes just hashed, in order, from the first byte, leaving the
// offset be; a copy that cannot write stops it.
BOOST_AUTO_TEST_CASE(from_the_start_each_chunk_is_handed_on_as_hashed) {
    constexpr std::size_t kChunk = 4096;
    const std::string content = content_of(5 * kChunk + 123);
    liveupdate::test::TempDir dir{"lu-file-hash"};
    const std::string path = dir.write("f", content);
    const UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    BOOST_REQUIRE(fd.get() >= 0);
    BOOST_REQUIRE(::lseek(fd.get(), 1000, SEEK_SET) == 1000);
    std::vector<char> buffer(kChunk);
    std::string copied;
    const fh::FdHash got = fh::hash_fd_from_start(fd.get(), buffer, [&copied](std::span<const char> chunk) {
        copied.append(chunk.data(), chunk.size());
        return true;
    });
    BOOST_TEST(got.error == 0);
    BOOST_TEST(!got.stopped);
    BOOST_TEST((copied == content), "the chunks handed on are not the file's bytes");
    BOOST_TEST(got.hash == whole(content));
    BOOST_TEST(::lseek(fd.get(), 0, SEEK_CUR) == 1000);
    std::size_t chunks = 0;
    const fh::FdHash stopped =
        fh::hash_fd_from_start(fd.get(), buffer, [&chunks](std::span<const char>) { return ++chunks < 3; });
    BOOST_TEST(stopped.stopped);
    BOOST_TEST(chunks == 3u);
    BOOST_TEST(stopped.hash == whole(content.substr(0, 3 * kChunk)));
}
