// Little-endian integers in byte strings, for the delta encodings.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/delta/signature.hpp"

namespace liveupdate::delta::byte_order {

inline void put(std::string &out, std::uint64_t v, int bytes) {
    for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}

// Takes `bytes` bytes off the front of in; throws DeltaError naming `what` when fewer are left.
inline std::uint64_t take(std::string_view &in, int bytes, const char *what) {
    if (in.size() < static_cast<std::size_t>(bytes)) throw DeltaError(std::string("ends inside ") + what);
    std::uint64_t v = 0;
    for (int i = 0; i < bytes; ++i) v |= static_cast<std::uint64_t>(static_cast<unsigned char>(in[i])) << (8 * i);
    in.remove_prefix(static_cast<std::size_t>(bytes));
    return v;
}

}  // namespace liveupdate::delta::byte_order
