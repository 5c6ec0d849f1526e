#include "common/delta/rolling_checksum.hpp"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace liveupdate::delta {
namespace {

struct Sums {
    std::uint32_t bytes = 0;     // sum of x[i]
    std::uint32_t weighted = 0;  // sum of i * x[i]
};

Sums sums_of(const unsigned char *data, std::size_t length) noexcept {
    Sums sums;
    std::size_t i = 0;
#if defined(__SSE2__)
    // 16 bytes a step (zlib's adler32 does the same): byte sums by psadbw,
    // the in-step weights 0..15 by pmaddwd, the step's offset 16k from a
    // running prefix of the byte sums. All sums wrap modulo 2^32, as the rolling does.
    const __m128i zero = _mm_setzero_si128();
    const __m128i low_weights = _mm_setr_epi16(0, 1, 2, 3, 4, 5, 6, 7);
    const __m128i high_weights = _mm_setr_epi16(8, 9, 10, 11, 12, 13, 14, 15);
    __m128i total = zero;   // 64-bit lanes: byte sums so far
    __m128i prefix = zero;  // 64-bit lanes: sum over steps of the byte sums before them
    __m128i inside = zero;  // 32-bit lanes: sum of j * x[16k + j]
    for (; i + 16 <= length; i += 16) {
        const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i *>(data + i));
        prefix = _mm_add_epi64(prefix, total);
        total = _mm_add_epi64(total, _mm_sad_epu8(v, zero));
        inside = _mm_add_epi32(inside, _mm_madd_epi16(_mm_unpacklo_epi8(v, zero), low_weights));
        inside = _mm_add_epi32(inside, _mm_madd_epi16(_mm_unpackhi_epi8(v, zero), high_weights));
    }
    alignas(16) std::uint64_t t[2], p[2];
    alignas(16) std::uint32_t in[4];
    _mm_store_si128(reinterpret_cast<__m128i *>(t), total);
    _mm_store_si128(reinterpret_cast<__m128i *>(p), prefix);
    _mm_store_si128(reinterpret_cast<__m128i *>(in), inside);
    sums.bytes = static_cast<std::uint32_t>(t[0] + t[1]);
    // prefix is sum over m of S_m * (steps - 1 - m); the weights wanted are 16 * m.
    const std::uint64_t steps = i / 16;
    const std::uint64_t byte_sum = t[0] + t[1];
    const std::uint64_t step_weighted = steps == 0 ? 0 : (steps - 1) * byte_sum - (p[0] + p[1]);
    sums.weighted = static_cast<std::uint32_t>(16 * step_weighted + in[0] + in[1] + in[2] + in[3]);
#endif
    for (; i < length; ++i) {
        sums.bytes += data[i];
        sums.weighted += static_cast<std::uint32_t>(i) * data[i];
    }
    return sums;
}

}  // namespace

void RollingChecksum::reset(const unsigned char *data, std::size_t length) noexcept {
    const Sums sums = sums_of(data, length);
    const auto n = static_cast<std::uint32_t>(length);
    // a = sum(x[i] + C); b = sum((n - i) * (x[i] + C)) = n * sum(x) - sum(i * x[i]) + C * n(n + 1) / 2.
    a_ = sums.bytes + n * kOffset;
    b_ = n * sums.bytes - sums.weighted +
         kOffset * static_cast<std::uint32_t>(static_cast<std::uint64_t>(length) * (length + 1) / 2);
    length_ = n;
}

std::uint32_t weak_checksum(const unsigned char *data, std::size_t length) noexcept {
    RollingChecksum sum;
    sum.reset(data, length);
    return sum.value();
}

}  // namespace liveupdate::delta
