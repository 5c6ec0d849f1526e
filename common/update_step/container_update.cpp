#include "common/update_step/container_update.hpp"

#include <string_view>

#include "common/json_fields.hpp"

namespace liveupdate::update_step {
namespace json = boost::json;

namespace {

json::array strings(const std::vector<std::string> &list) {
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
    void operator()(std::string_view key, const std::vector<std::string> &value, Presence p = kRequired) {
        if (p.written) out_[key] = strings(value);
    }
    void operator()(std::string_view key, const std::vector<common::IgnoreDef> &value, Presence p = kRequired) {
        if (p.written) out_[key] = common::to_json(value);
    }
    template <class Fields>
    void object(std::string_view key, Fields &&fields) {
        json::object nested;
        Encoder inner(nested);
        fields(inner);
        out_[key] = std::move(nested);
    }
    template <class T, class Fields>
    void objects(std::string_view key, const std::vector<T> &list, Fields &&fields) {
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

// Walks a field list reading each member out of `in`; `path` names `in`.
class Decoder {
public:
    Decoder(const json::object &in, std::string path) : in_(in), path_(std::move(path)) {}

    void operator()(std::string_view key, std::string &value, Presence p = kRequired) {
        if (const json::value *v = find(key, p)) value = string_of(*v, common::child(path_, key));
    }
    void operator()(std::string_view key, bool &value, Presence p = kRequired) {
        const json::value *v = find(key, p);
        if (v == nullptr) return;
        if (!v->is_bool()) throw common::DecodeError(common::child(path_, key), "expected boolean");
        value = v->get_bool();
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
    template <class Fields>
    void object(std::string_view key, Fields &&fields) {
        const json::value *v = find(key, kRequired);
        const std::string where = common::child(path_, key);
        Decoder inner(object_of(*v, where), where);
        fields(inner);
    }
    template <class T, class Fields>
    void objects(std::string_view key, std::vector<T> &list, Fields &&fields) {
        const json::value *v = find(key, kRequired);
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

private:
    // The member, or nullptr when an optional one is absent.
    const json::value *find(std::string_view key, Presence p) const {
        const json::value *v = in_.if_contains(key);
        if (v == nullptr && p.required) throw common::DecodeError(common::child(path_, key), "missing");
        return v;
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

    const json::object &in_;
    std::string path_;
};

}  // namespace

json::object encode(const ContainerUpdate &update) {
    json::object out;
    Encoder encoder(out);
    ContainerUpdate::fields(update, encoder);
    return out;
}

ContainerUpdate decode_update(const json::value &value, const std::string &path) {
    if (!value.is_object()) throw common::DecodeError(path, "expected object");
    ContainerUpdate update;
    Decoder decoder(value.get_object(), path);
    ContainerUpdate::fields(update, decoder);
    if (update.via.empty()) throw common::DecodeError(common::child(path, "via"), "names no updater");
    return update;
}

}  // namespace liveupdate::update_step
