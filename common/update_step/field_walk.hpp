// The encoder and the decoder that walk a step schema's field list (a
// `fields(s, f)` function: container_update.hpp, step_envelope.hpp). One
// list drives both, so what the plugin writes and what the host reads cannot
// drift. Internal to common/update_step.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/json.hpp>

#include "common/ignore_defs.hpp"
#include "common/json_fields.hpp"
#include "common/log_level.hpp"

namespace liveupdate::update_step {

// How a field stands in the document: a required one must be there; an
// optional one may be absent (it then reads as its default) and is written
// only when `written` says so.
struct Presence {
    bool required = true;
    bool written = true;
};
inline constexpr Presence kRequired{};
constexpr Presence optional_field(bool written) { return Presence{false, written}; }
// A field that one kind of document has and the others lack.
constexpr Presence present_if(bool has) { return Presence{has, has}; }

namespace field_walk {
namespace json = boost::json;

inline json::array strings(const std::vector<std::string> &list) {
    json::array out;
    out.reserve(list.size());
    for (const auto &s : list) out.emplace_back(s);
    return out;
}

// Walks a field list writing each member into `out`, in the list's order.
class Encoder {
public:
    explicit Encoder(json::object &out) : out_(out) {}

    void operator()(std::string_view key, const std::string &value, Presence p = kRequired) {
        if (p.written) out_[key] = value;
    }
    void operator()(std::string_view key, bool value, Presence p = kRequired) {
        if (p.written) out_[key] = value;
    }
    void operator()(std::string_view key, int value, Presence p = kRequired) {
        if (p.written) out_[key] = value;
    }
    void operator()(std::string_view key, common::LogLevel value, Presence p = kRequired) {
        if (p.written) out_[key] = common::to_string(value);
    }
    void operator()(std::string_view key, const json::value &value, Presence p = kRequired) {
        if (p.written) out_[key] = value;
    }
    // An array of objects kept as JSON (the decoder checks their shape).
    template <class Check>
    void objects_as_json(std::string_view key, const std::vector<json::object> &value, Check &&,
                         Presence p = kRequired) {
        if (p.written) out_[key] = json::array(value.begin(), value.end());
    }
    void operator()(std::string_view key, const std::vector<std::string> &value, Presence p = kRequired) {
        if (p.written) out_[key] = strings(value);
    }
    void operator()(std::string_view key, const std::vector<common::IgnoreDef> &value, Presence p = kRequired) {
        if (p.written) out_[key] = common::to_json(value);
    }
    // A member with a codec of its own: codec(value) gives its JSON.
    template <class T, class Codec>
    void with(std::string_view key, const T &value, Codec &&codec, Presence p = kRequired) {
        if (p.written) out_[key] = codec(value);
    }
    template <class Fields>
    void object(std::string_view key, Fields &&fields, Presence p = kRequired) {
        if (!p.written) return;
        json::object nested;
        Encoder inner(nested);
        fields(inner);
        out_[key] = std::move(nested);
    }
    template <class T, class Fields>
    void objects(std::string_view key, const std::vector<T> &list, Fields &&fields, Presence p = kRequired) {
        if (!p.written) return;
        json::array out;
        out.reserve(list.size());
        for (const T &element : list) {
            json::object nested;
            Encoder inner(nested);
            fields(element, inner);
            out.push_back(std::move(nested));
        }
        out_[key] = std::move(out);
    }

private:
    json::object &out_;
};

// Walks a field list reading each member out of `in`; `path` names `in`
// ("updates[0].update"), so an error names the member's whole path. Given
// `in` to consume, members kept as JSON are moved out of it, not copied (an
// initial sync's event lists every file).
class Decoder {
public:
    Decoder(const json::object &in, std::string path) : in_(in), path_(std::move(path)) {}
    Decoder(json::object &in, std::string path, bool consume)
        : in_(in), consumed_(consume ? &in : nullptr), path_(std::move(path)) {}

    const std::string &path() const { return path_; }

    void operator()(std::string_view key, std::string &value, Presence p = kRequired) {
        if (const json::value *v = find(key, p)) value = string_of(*v, common::child(path_, key));
    }
    void operator()(std::string_view key, bool &value, Presence p = kRequired) {
        const json::value *v = find(key, p);
        if (v == nullptr) return;
        if (!v->is_bool()) throw common::DecodeError(common::child(path_, key), "expected boolean");
        value = v->get_bool();
    }
    void operator()(std::string_view key, int &value, Presence p = kRequired) {
        const json::value *v = find(key, p);
        if (v == nullptr) return;
        const bool fits = (v->is_int64() && v->get_int64() >= INT32_MIN && v->get_int64() <= INT32_MAX) ||
                          (v->is_uint64() && v->get_uint64() <= INT32_MAX);
        if (!fits) throw common::DecodeError(common::child(path_, key), "expected integer");
        value = static_cast<int>(v->is_int64() ? v->get_int64() : static_cast<std::int64_t>(v->get_uint64()));
    }
    // Any JSON, null included, kept as it is.
    void operator()(std::string_view key, json::value &value, Presence p = kRequired) {
        if (const json::value *v = find(key, p)) value = take(key, *v);
    }
    // An array of objects kept as JSON; check(object, path) throws for one of the wrong shape.
    template <class Check>
    void objects_as_json(std::string_view key, std::vector<json::object> &value, Check &&check,
                         Presence p = kRequired) {
        const json::value *v = find(key, p);
        if (v == nullptr) return;
        const std::string where = common::child(path_, key);
        const json::array &list = array_of(*v, where);
        for (std::size_t i = 0; i < list.size(); ++i)
            check(object_of(list[i], common::index(where, i)), common::index(where, i));
        // list is gone once taken: only kept is read from here on.
        json::value kept = take(key, *v);
        value.clear();
        value.reserve(kept.get_array().size());
        for (json::value &element : kept.get_array()) value.push_back(std::move(element.get_object()));
    }
    void operator()(std::string_view key, common::LogLevel &value, Presence p = kRequired) {
        const json::value *v = find(key, p);
        if (v == nullptr) return;
        const std::string where = common::child(path_, key);
        const std::optional<common::LogLevel> level = common::parse_log_level(string_of(*v, where));
        if (!level) throw common::DecodeError(where, "unknown log level \"" + string_of(*v, where) + "\"");
        value = *level;
    }
    void operator()(std::string_view key, std::vector<std::string> &value, Presence p = kRequired) {
        const json::value *v = find(key, p);
        if (v == nullptr) return;
        const std::string where = common::child(path_, key);
        const json::array &list = array_of(*v, where);
        value.clear();
        value.reserve(list.size());
        for (std::size_t i = 0; i < list.size(); ++i) value.push_back(string_of(list[i], common::index(where, i)));
    }
    void operator()(std::string_view key, std::vector<common::IgnoreDef> &value, Presence p = kRequired) {
        const json::value *v = find(key, p);
        if (v == nullptr) return;
        const std::string where = common::child(path_, key);
        array_of(*v, where);
        value = common::parse_ignore_defs(*v, where);
    }
    // A member whose decoding is not a field list (a nested schema's own
    // decoder, a document passed on whole): read(value, path) gives it.
    template <class T, class Read>
    void with(std::string_view key, T &value, Read &&read, Presence p = kRequired) {
        if (const json::value *v = find(key, p)) value = read(*v, common::child(path_, key));
    }
    template <class Fields>
    void object(std::string_view key, Fields &&fields, Presence p = kRequired) {
        const json::value *v = find(key, p);
        if (v == nullptr) return;
        const std::string where = common::child(path_, key);
        Decoder inner(object_of(*v, where), where);
        fields(inner);
    }
    template <class T, class Fields>
    void objects(std::string_view key, std::vector<T> &list, Fields &&fields, Presence p = kRequired) {
        const json::value *v = find(key, p);
        if (v == nullptr) return;
        const std::string where = common::child(path_, key);
        const json::array &elements = array_of(*v, where);
        list.clear();
        list.reserve(elements.size());
        for (std::size_t i = 0; i < elements.size(); ++i) {
            const std::string element_path = common::index(where, i);
            Decoder inner(object_of(elements[i], element_path), element_path);
            fields(list.emplace_back(), inner);
        }
    }

    static std::string string_of(const json::value &v, const std::string &where) {
        if (!v.is_string()) throw common::DecodeError(where, "expected string");
        return std::string(v.get_string());
    }
    static const json::array &array_of(const json::value &v, const std::string &where) {
        if (!v.is_array()) throw common::DecodeError(where, "expected array");
        return v.get_array();
    }
    static const json::object &object_of(const json::value &v, const std::string &where) {
        if (!v.is_object()) throw common::DecodeError(where, "expected object");
        return v.get_object();
    }

private:
    // The member, or nullptr when an optional one is absent.
    const json::value *find(std::string_view key, Presence p) const {
        const json::value *v = common::member_as_written(in_, key);
        if (v == nullptr && p.required) throw common::DecodeError(common::child(path_, key), "missing");
        return v;
    }
    // The member found as v: moved out of a document being consumed, else copied.
    json::value take(std::string_view key, const json::value &v) {
        if (consumed_ == nullptr) return v;
        return std::move((*consumed_)[key]);
    }

    const json::object &in_;
    json::object *consumed_ = nullptr;
    std::string path_;
};

}  // namespace field_walk
}  // namespace liveupdate::update_step
