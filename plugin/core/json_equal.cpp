#include "plugin/core/json_equal.hpp"

#include <algorithm>
#include <cstdint>

namespace liveupdate {
namespace json = boost::json;

namespace {

bool same_integer(std::int64_t i, std::uint64_t u) { return i >= 0 && static_cast<std::uint64_t>(i) == u; }

bool objects_equal(const json::object &a, const json::object &b) noexcept {
    if (a.size() != b.size()) return false;
    const json::key_value_pair *in_order = b.begin();
    for (const json::key_value_pair &member : a) {
        // Documents written by the same code keep their members in order: no lookup then.
        const json::value *other = in_order->key() == member.key() ? &in_order->value() : b.if_contains(member.key());
        ++in_order;
        if (other == nullptr || !json_equal(member.value(), *other)) return false;
    }
    return true;
}

}  // namespace

bool json_equal(const json::value &a, const json::value &b) noexcept {
    switch (a.kind()) {
    case json::kind::null: return b.is_null();
    case json::kind::bool_: return b.is_bool() && a.get_bool() == b.get_bool();
    case json::kind::int64:
        return b.is_int64() ? a.get_int64() == b.get_int64()
                            : b.is_uint64() && same_integer(a.get_int64(), b.get_uint64());
    case json::kind::uint64:
        return b.is_uint64() ? a.get_uint64() == b.get_uint64()
                             : b.is_int64() && same_integer(b.get_int64(), a.get_uint64());
    case json::kind::double_: return b.is_double() && a.get_double() == b.get_double();
    case json::kind::string: return b.is_string() && a.get_string() == b.get_string();
    case json::kind::array:
        return b.is_array() && a.get_array().size() == b.get_array().size() &&
               std::equal(a.get_array().begin(), a.get_array().end(), b.get_array().begin(), json_equal);
    case json::kind::object: return b.is_object() && objects_equal(a.get_object(), b.get_object());
    }
    return false;
}

}  // namespace liveupdate
