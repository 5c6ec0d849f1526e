#include "common/json_fields.hpp"

#include "common/json_parse.hpp"

namespace liveupdate::common {

std::string child(const std::string &path, std::string_view key) {
    if (path.empty()) return std::string(key);
    std::string out = path;
    out += '.';
    out += key;
    return out;
}

std::string index(const std::string &path, std::size_t i) { return path + "[" + std::to_string(i) + "]"; }

namespace {

// The const and mutable accessors share one body: Object/Value carry the constness.
template <class Object>
auto *member_of(Object &o, std::string_view key) {
    auto *v = o.if_contains(key);
    return v == nullptr || v->is_null() ? nullptr : v;
}

template <class Value>
auto &object_of(Value &v, const std::string &path) {
    if (!v.is_object()) throw DecodeError(path, "expected object");
    return v.get_object();
}

template <class Object>
auto *object_member(Object &o, std::string_view key, const std::string &path) {
    auto *v = member_of(o, key);
    return v == nullptr ? nullptr : &object_of(*v, child(path, key));
}

template <class Object>
auto *array_member(Object &o, std::string_view key, const std::string &path) {
    auto *v = member_of(o, key);
    if (v == nullptr) return static_cast<decltype(&v->get_array())>(nullptr);
    if (!v->is_array()) throw DecodeError(child(path, key), "expected array");
    return &v->get_array();
}

}  // namespace

const json::value *member(const json::object &o, std::string_view key) { return member_of(o, key); }

const json::value *member_as_written(const json::object &o, std::string_view key) { return o.if_contains(key); }
json::value *member_as_written(json::object &o, std::string_view key) { return o.if_contains(key); }

const json::object &expect_object(const json::value &v, const std::string &path) { return object_of(v, path); }
json::object &expect_object(json::value &v, const std::string &path) { return object_of(v, path); }

const json::object *object_field(const json::object &o, std::string_view key, const std::string &path) {
    return object_member(o, key, path);
}
json::object *object_field(json::object &o, std::string_view key, const std::string &path) {
    return object_member(o, key, path);
}

const json::array *array_field(const json::object &o, std::string_view key, const std::string &path) {
    return array_member(o, key, path);
}
json::array *array_field(json::object &o, std::string_view key, const std::string &path) {
    return array_member(o, key, path);
}

std::string string_field(const json::object &o, std::string_view key, const std::string &path,
                         std::string_view fallback) {
    const auto *v = member(o, key);
    if (v == nullptr) return std::string(fallback);
    if (!v->is_string()) throw DecodeError(child(path, key), "expected string");
    return std::string(v->get_string());
}

bool bool_field(const json::object &o, std::string_view key, const std::string &path, bool fallback) {
    const auto *v = member(o, key);
    if (v == nullptr) return fallback;
    if (!v->is_bool()) throw DecodeError(child(path, key), "expected boolean");
    return v->get_bool();
}

std::int64_t int_field(const json::object &o, std::string_view key, const std::string &path, std::int64_t fallback) {
    const auto *v = member(o, key);
    if (v == nullptr) return fallback;
    if (v->is_int64()) return v->get_int64();
    if (v->is_uint64() && v->get_uint64() <= static_cast<std::uint64_t>(INT64_MAX))
        return static_cast<std::int64_t>(v->get_uint64());
    throw DecodeError(child(path, key), "expected integer");
}

MicroTime time_field(const json::object &o, std::string_view key, const std::string &path) {
    const auto *v = member(o, key);
    if (v == nullptr) return {};
    if (!v->is_string()) throw DecodeError(child(path, key), "expected string");
    const auto &s = v->get_string();
    if (s.empty()) return {};
    const auto t = MicroTime::parse(std::string_view(s.data(), s.size()));
    if (!t) throw DecodeError(child(path, key), "expected RFC 3339 time, got \"" + std::string(s) + "\"");
    return *t;
}

std::vector<std::string> string_array_field(const json::object &o, std::string_view key, const std::string &path) {
    std::vector<std::string> out;
    const auto *arr = array_field(o, key, path);
    if (arr == nullptr) return out;
    out.reserve(arr->size());
    const std::string p = child(path, key);
    for (std::size_t i = 0; i < arr->size(); ++i) {
        if (!(*arr)[i].is_string()) throw DecodeError(index(p, i), "expected string");
        out.emplace_back((*arr)[i].get_string());
    }
    return out;
}

std::map<std::string, std::string> string_map_field(const json::object &o, std::string_view key,
                                                    const std::string &path) {
    std::map<std::string, std::string> out;
    const auto *obj = object_field(o, key, path);
    if (obj == nullptr) return out;
    const std::string p = child(path, key);
    for (const auto &kv : *obj) {
        if (!kv.value().is_string()) throw DecodeError(child(p, kv.key()), "expected string");
        out.emplace(std::string(kv.key()), std::string(kv.value().get_string()));
    }
    return out;
}

json::value parse_limited(std::string_view text, std::size_t max_bytes, std::size_t max_depth,
                          json::storage_ptr storage) {
    if (text.size() > max_bytes)
        throw DecodeError("", "document of " + std::to_string(text.size()) + " bytes exceeds the limit of " +
                                  std::to_string(max_bytes) + " bytes");
    try {
        return parse_json(text, max_depth, std::move(storage));
    } catch (const JsonParseError &e) {
        throw DecodeError(e.field(), "malformed JSON at line " + std::to_string(e.line()) + ", column " +
                                         std::to_string(e.column()) + ": " + e.why());
    }
}

namespace {

// The object holding the last key of keys (nullptr when a step is absent or
// null) and the path of that object.
const json::object *parent_of(const json::object &o, Keys keys, std::string &path) {
    const json::object *cur = &o;
    for (auto key = keys.begin(); key + 1 < keys.end(); ++key) {
        cur = object_field(*cur, *key, path);
        path = child(path, *key);
        if (cur == nullptr) return nullptr;
    }
    return cur;
}

template <class Get>
auto at_keys(const json::object &o, Keys keys, Get get) {
    std::string path;
    if (keys.size() == 0) return get(nullptr, std::string_view(), path);
    const json::object *parent = parent_of(o, keys, path);
    return get(parent, *(keys.end() - 1), path);
}

const json::object &document_object(const json::value &v) { return expect_object(v, ""); }

}  // namespace

const json::value *member(const json::object &o, Keys keys) {
    return at_keys(o, keys, [](const json::object *parent, std::string_view key, const std::string &) {
        return parent == nullptr ? nullptr : member(*parent, key);
    });
}
const json::value *member(const json::value &v, Keys keys) { return member(document_object(v), keys); }

const json::object *object_field(const json::object &o, Keys keys) {
    return at_keys(o, keys, [](const json::object *parent, std::string_view key, const std::string &path) {
        return parent == nullptr ? nullptr : object_field(*parent, key, path);
    });
}
const json::object *object_field(const json::value &v, Keys keys) { return object_field(document_object(v), keys); }

const json::array *array_field(const json::object &o, Keys keys) {
    return at_keys(o, keys, [](const json::object *parent, std::string_view key, const std::string &path) {
        return parent == nullptr ? nullptr : array_field(*parent, key, path);
    });
}
const json::array *array_field(const json::value &v, Keys keys) { return array_field(document_object(v), keys); }

std::string string_field(const json::object &o, Keys keys, std::string_view fallback) {
    return at_keys(o, keys, [fallback](const json::object *parent, std::string_view key, const std::string &path) {
        return parent == nullptr ? std::string(fallback) : string_field(*parent, key, path, fallback);
    });
}
std::string string_field(const json::value &v, Keys keys, std::string_view fallback) {
    return string_field(document_object(v), keys, fallback);
}

bool bool_field(const json::object &o, Keys keys, bool fallback) {
    return at_keys(o, keys, [fallback](const json::object *parent, std::string_view key, const std::string &path) {
        return parent == nullptr ? fallback : bool_field(*parent, key, path, fallback);
    });
}

std::int64_t int_field(const json::object &o, Keys keys, std::int64_t fallback) {
    return at_keys(o, keys, [fallback](const json::object *parent, std::string_view key, const std::string &path) {
        return parent == nullptr ? fallback : int_field(*parent, key, path, fallback);
    });
}

}  // namespace liveupdate::common
