// common/delta: the rsync algorithm without I/O. Each case builds a new file
// from an old one through signature, matcher and instruction encoding, and
// checks the rebuilt bytes equal the new ones (and, where it matters, how few
// literal bytes it took).
#define BOOST_TEST_MODULE delta
#include <boost/test/unit_test.hpp>
#include <random>
#include <string>

#include "common/delta/content_hash.hpp"
#include "common/delta/instructions.hpp"
#include "common/delta/matcher.hpp"
#include "common/delta/rolling_checksum.hpp"
#include "common/delta/signature.hpp"

using namespace liveupdate::delta;

namespace {

std::string random_bytes(std::size_t size, unsigned seed) {
    std::mt19937_64 rng(seed);
    std::string s(size, '\0');
    for (auto &c : s) c = static_cast<char>(rng());
    return s;
}

Signature signature_of(const std::string &old, std::uint32_t block_size, std::size_t piece = 1000) {
    SignatureBuilder builder(block_size);
    for (std::size_t i = 0; i < old.size(); i += piece) builder.feed(std::string_view(old).substr(i, piece));
    // Through the wire encoding, as the agent sends it.
    return decode_signature(encode_signature(builder.finish()));
}

struct Delta {
    std::string encoded;
    std::size_t literal_bytes = 0;
};

Delta delta_of(const Signature &signature, const std::string &now, std::size_t piece = 777) {
    InstructionWriter writer;
    Delta d;
    Matcher matcher(signature,
                    DeltaSink{[&](std::uint64_t offset, std::uint64_t length) { writer.copy(offset, length); },
                              [&](std::string_view bytes) {
                                  d.literal_bytes += bytes.size();
                                  writer.literal(bytes);
                              }},
                    4096);
    for (std::size_t i = 0; i < now.size(); i += piece) matcher.feed(std::string_view(now).substr(i, piece));
    matcher.finish();
    d.encoded = writer.take();
    return d;
}

std::string rebuilt(const std::string &old, const std::string &encoded) {
    std::string out;
    read_instructions(encoded, InstructionHandlers{[&](std::uint64_t offset, std::uint64_t length) {
                                                       BOOST_REQUIRE(offset + length <= old.size());
                                                       out.append(old, offset, length);
                                                   },
                                                   [&](std::string_view bytes) { out.append(bytes); }});
    return out;
}

// Rebuilds `now` from `old`; returns the literal bytes it took.
std::size_t check_round_trip(const std::string &old, const std::string &now, std::uint32_t block_size = 512) {
    const auto d = delta_of(signature_of(old, block_size), now);
    BOOST_TEST(rebuilt(old, d.encoded) == now);
    return d.literal_bytes;
}

const std::string kOld = random_bytes(100'000, 1);

}  // namespace

BOOST_AUTO_TEST_CASE(an_unchanged_file_is_all_copies_in_one_instruction) {
    const auto d = delta_of(signature_of(kOld, 512), kOld);
    BOOST_TEST(d.literal_bytes == 0u);
    BOOST_TEST(d.encoded.size() == 17u);  // one merged copy
    BOOST_TEST(rebuilt(kOld, d.encoded) == kOld);
}

BOOST_AUTO_TEST_CASE(a_file_that_grows_sends_only_what_was_added) {
    const auto added = random_bytes(3000, 2);
    BOOST_TEST(check_round_trip(kOld, kOld + added) <= added.size() + 512);
    BOOST_TEST(check_round_trip(kOld, kOld.substr(0, 50'000) + added + kOld.substr(50'000)) <= added.size() + 1024);
}

BOOST_AUTO_TEST_CASE(a_file_that_shrinks_is_copies_only_or_nearly) {
    BOOST_TEST(check_round_trip(kOld, kOld.substr(0, 60'000)) <= 512u);
    BOOST_TEST(check_round_trip(kOld, kOld.substr(0, 30'000) + kOld.substr(40'000)) <= 1024u);
    BOOST_TEST(check_round_trip(kOld, "") == 0u);
}

BOOST_AUTO_TEST_CASE(a_file_rewritten_from_the_start_matches_at_every_offset) {
    // One byte inserted at the front shifts every block: the rolling window finds them again.
    BOOST_TEST(check_round_trip(kOld, "x" + kOld) <= 512u);
    const auto rewritten = random_bytes(100'000, 3);
    BOOST_TEST(check_round_trip(kOld, rewritten) == rewritten.size());
}

BOOST_AUTO_TEST_CASE(moved_blocks_are_copied_from_where_they_were) {
    const auto moved = kOld.substr(70'000) + kOld.substr(20'000, 50'000) + kOld.substr(0, 20'000);
    BOOST_TEST(check_round_trip(kOld, moved) <= 3 * 512u);
}

BOOST_AUTO_TEST_CASE(another_file_of_the_same_size_is_all_literal) {
    const auto other = random_bytes(kOld.size(), 4);
    BOOST_TEST(check_round_trip(kOld, other) == other.size());
}

BOOST_AUTO_TEST_CASE(a_one_byte_change_costs_about_one_block) {
    auto changed = kOld;
    changed[50'123] ^= 0x5A;
    BOOST_TEST(check_round_trip(kOld, changed) <= 512u);
}

BOOST_AUTO_TEST_CASE(a_short_last_block_matches_at_the_end) {
    const auto old = kOld.substr(0, 10'300);  // 20 blocks of 512 and one of 60
    BOOST_TEST(check_round_trip(old, "prefix" + old) == 6u);
    BOOST_TEST(check_round_trip(old, old) == 0u);
}

BOOST_AUTO_TEST_CASE(repeated_blocks_and_an_empty_old_file_rebuild_exactly) {
    const std::string zeros(20'000, '\0');
    BOOST_TEST(check_round_trip(zeros, zeros + "tail" + zeros) <= 512u);
    BOOST_TEST(check_round_trip("", kOld) == kOld.size());
}

BOOST_AUTO_TEST_CASE(the_result_does_not_depend_on_how_the_bytes_are_fed) {
    auto changed = kOld;
    changed[99] = 'x';
    const auto sig = signature_of(kOld, 512, 1);
    const auto a = delta_of(sig, changed, 1);
    const auto b = delta_of(sig, changed, changed.size());
    BOOST_TEST(a.encoded == b.encoded);
    BOOST_TEST(rebuilt(kOld, a.encoded) == changed);
}

BOOST_AUTO_TEST_CASE(the_checksum_is_rsyncs_sums_at_every_length) {
    const auto *data = reinterpret_cast<const unsigned char *>(kOld.data());
    for (std::size_t length : {0, 1, 15, 16, 17, 100, 4096, 70'001}) {
        std::uint32_t a = 0, b = 0;
        for (std::size_t i = 0; i < length; ++i) {
            a += data[i] + RollingChecksum::kOffset;
            b += static_cast<std::uint32_t>(length - i) * (data[i] + RollingChecksum::kOffset);
        }
        BOOST_TEST(weak_checksum(data, length) == ((a & 0xFFFF) | (b << 16)), "length " << length);
    }
}

BOOST_AUTO_TEST_CASE(rolling_equals_the_checksum_from_scratch) {
    const auto *data = reinterpret_cast<const unsigned char *>(kOld.data());
    RollingChecksum rolling;
    rolling.reset(data, 700);
    for (std::size_t i = 0; i < 5000; ++i) {
        BOOST_REQUIRE(rolling.value() == weak_checksum(data + i, 700));
        rolling.roll(data[i], data[i + 700]);
    }
}

BOOST_AUTO_TEST_CASE(block_sizes_follow_the_square_root_within_bounds) {
    BOOST_TEST(block_size_for(0) == kMinBlockSize);
    BOOST_TEST(block_size_for(100ULL << 20) == 10240u);
    BOOST_TEST(block_size_for(1ULL << 40) == kMaxBlockSize);
    BOOST_TEST(block_size_for(200ULL << 20) % 64 == 0u);
}

BOOST_AUTO_TEST_CASE(malformed_signatures_and_instructions_are_refused) {
    const auto good = encode_signature(signature_of(kOld, 512));
    BOOST_CHECK_THROW(decode_signature(good.substr(0, good.size() - 1)), DeltaError);
    BOOST_CHECK_THROW(decode_signature(good.substr(0, 10)), DeltaError);
    auto wrong_count = good;
    wrong_count[12] = 1;
    BOOST_CHECK_THROW(decode_signature(wrong_count), DeltaError);
    auto zero_block = good;
    zero_block[0] = zero_block[1] = 0;
    BOOST_CHECK_THROW(decode_signature(zero_block), DeltaError);

    const InstructionHandlers ignore{[](std::uint64_t, std::uint64_t) {}, [](std::string_view) {}};
    BOOST_CHECK_THROW(read_instructions(std::string("\x03", 1), ignore), DeltaError);
    BOOST_CHECK_THROW(read_instructions(std::string("\x01\x00\x00", 3), ignore), DeltaError);
    BOOST_CHECK_THROW(read_instructions(std::string("\x02\x09\x00\x00\x00"
                                                    "abc",
                                                    8),
                                        ignore),
                      DeltaError);
}

BOOST_AUTO_TEST_CASE(the_content_hash_is_the_same_in_any_pieces) {
    ContentHash whole;
    whole.update(kOld);
    ContentHash pieces;
    for (std::size_t i = 0; i < kOld.size(); i += 999) pieces.update(std::string_view(kOld).substr(i, 999));
    BOOST_TEST((whole.digest() == pieces.digest()));
    BOOST_TEST((whole.digest() == strong_hash(kOld)));
    ContentHash other;
    other.update(kOld.substr(1));
    BOOST_TEST(!(other.digest() == whole.digest()));
}
