// Reading JSON documents out of Boost.JSON, for the plugin, the host and the
// updaters alike: one family of getters, strict about types. A member that is
// absent or null reads as the fallback (the type's zero value, Go's rule for
// Tilt's objects, unless the caller names another); a member of another type
// is a DecodeError naming its path (`spec.syncs[1].containerPath: expected
// string`), never silently "". A member is named either by (object, key,
// path of the object) or by (document, {key, key...}), whose error path is
// the keys; every object on the way must be an object when present.
#pragma once

#include <boost/json.hpp>

#include <initializer_list>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "common/micro_time.hpp"

namespace liveupdate::common {

namespace json = boost::json;

class DecodeError : public std::runtime_error {
public:
    DecodeError(std::string field, std::string reason)
        : std::runtime_error(field.empty() ? reason : field + ": " + reason),
          field_(std::move(field)),
          reason_(std::move(reason)) {}
    const std::string &field() const { return field_; }
    const std::string &reason() const { return reason_; }

private:
    std::string field_;
    std::string reason_;
};

std::string child(const std::string &path, std::string_view key);
std::string index(const std::string &path, std::size_t i);

// The member `key` of o, or nullptr when missing or null.
const json::value *member(const json::object &o, std::string_view key);
// The member `key` of o as written, null included, for where a null means
// something of its own (an expected null, a merge patch); nullptr when absent.
const json::value *member_as_written(const json::object &o, std::string_view key);
json::value *member_as_written(json::object &o, std::string_view key);

// The object at o[key]; nullptr when missing or null; throws when not an object.
const json::object *object_field(const json::object &o, std::string_view key, const std::string &path);
const json::array *array_field(const json::object &o, std::string_view key, const std::string &path);
const json::object &expect_object(const json::value &v, const std::string &path);
// Mutable twins, for decoders that move parts out of a document.
json::object *object_field(json::object &o, std::string_view key, const std::string &path);
json::array *array_field(json::object &o, std::string_view key, const std::string &path);
json::object &expect_object(json::value &v, const std::string &path);

std::string string_field(const json::object &o, std::string_view key, const std::string &path,
                         std::string_view fallback = {});
bool bool_field(const json::object &o, std::string_view key, const std::string &path, bool fallback = false);
std::int64_t int_field(const json::object &o, std::string_view key, const std::string &path, std::int64_t fallback = 0);
MicroTime time_field(const json::object &o, std::string_view key, const std::string &path);
std::vector<std::string> string_array_field(const json::object &o, std::string_view key, const std::string &path);
std::map<std::string, std::string> string_map_field(const json::object &o, std::string_view key,
                                                    const std::string &path);

// The same getters by a path of keys from a document.
using Keys = std::initializer_list<std::string_view>;
const json::value *member(const json::value &v, Keys keys);
const json::value *member(const json::object &o, Keys keys);
const json::object *object_field(const json::value &v, Keys keys);
const json::object *object_field(const json::object &o, Keys keys);
const json::array *array_field(const json::value &v, Keys keys);
const json::array *array_field(const json::object &o, Keys keys);
std::string string_field(const json::value &v, Keys keys, std::string_view fallback = {});
std::string string_field(const json::object &o, Keys keys, std::string_view fallback = {});
bool bool_field(const json::object &o, Keys keys, bool fallback = false);
std::int64_t int_field(const json::object &o, Keys keys, std::int64_t fallback = 0);

// Parses text with a depth limit and a size cap (common/json_parse: a key
// given twice, a number out of range or invalid UTF-8 is refused too); throws
// DecodeError(field, "malformed JSON at line L, column C: why") otherwise.
// The document is allocated from storage (the default resource unless given).
json::value parse_limited(std::string_view text, std::size_t max_bytes = 64u << 20, std::size_t max_depth = 64,
                          json::storage_ptr storage = {});

}  // namespace liveupdate::common
