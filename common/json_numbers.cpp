#include "common/json_numbers.hpp"

#include <cstdint>

namespace liveupdate::common {

bool same_number(const boost::json::value &a, const boost::json::value &b) {
    if (a.is_double() || b.is_double()) return a.to_number<double>() == b.to_number<double>();
    if (a.is_int64() && b.is_int64()) return a.get_int64() == b.get_int64();
    if (a.is_uint64() && b.is_uint64()) return a.get_uint64() == b.get_uint64();
    const boost::json::value &signed_one = a.is_int64() ? a : b;
    const boost::json::value &unsigned_one = a.is_int64() ? b : a;
    return signed_one.get_int64() >= 0 &&
           static_cast<std::uint64_t>(signed_one.get_int64()) == unsigned_one.get_uint64();
}

}  // namespace liveupdate::common
