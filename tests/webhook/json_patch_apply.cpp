#include "tests/webhook/json_patch_apply.hpp"

#include <stdexcept>
#include <string>
#include <vector>

namespace liveupdate::tests {
namespace json = boost::json;

namespace {

std::vector<std::string> tokens(const std::string &pointer) {
    if (pointer.empty() || pointer[0] != '/') throw std::invalid_argument("not a JSON pointer: " + pointer);
    std::vector<std::string> out;
    std::string token;
    for (std::size_t i = 1; i <= pointer.size(); ++i) {
        if (i == pointer.size() || pointer[i] == '/') {
            out.push_back(token);
            token.clear();
        } else if (pointer[i] == '~' && i + 1 < pointer.size() && (pointer[i + 1] == '0' || pointer[i + 1] == '1')) {
            token += pointer[++i] == '0' ? '~' : '/';
        } else {
            token += pointer[i];
        }
    }
    return out;
}

std::size_t index_of(const std::string &token, std::size_t size, const std::string &path) {
    if (token.empty() || token.find_first_not_of("0123456789") != std::string::npos)
        throw std::invalid_argument(path + ": not an array index");
    const std::size_t i = std::stoul(token);
    if (i > size) throw std::invalid_argument(path + ": index out of range");
    return i;
}

json::value &step(json::value &at, const std::string &token, const std::string &path) {
    if (at.is_object()) {
        auto *found = at.as_object().if_contains(token);
        if (found == nullptr) throw std::invalid_argument(path + ": no member " + token);
        return *found;
    }
    if (at.is_array()) {
        const std::size_t i = index_of(token, at.as_array().size(), path);
        if (i == at.as_array().size()) throw std::invalid_argument(path + ": index out of range");
        return at.as_array()[i];
    }
    throw std::invalid_argument(path + ": neither an object nor an array");
}

}  // namespace

json::value apply_json_patch(json::value document, const json::array &patch) {
    for (const auto &entry : patch) {
        const json::object &o = entry.as_object();
        const std::string name(o.at("op").as_string());
        const std::string path(o.at("path").as_string());
        const std::vector<std::string> keys = tokens(path);
        json::value *parent = &document;
        for (std::size_t i = 0; i + 1 < keys.size(); ++i) parent = &step(*parent, keys[i], path);
        const std::string &last = keys.back();
        if (name == "add") {
            if (parent->is_object()) {
                parent->as_object()[last] = o.at("value");
            } else if (parent->is_array()) {
                json::array &a = parent->as_array();
                const std::size_t i = last == "-" ? a.size() : index_of(last, a.size(), path);
                a.insert(a.begin() + static_cast<std::ptrdiff_t>(i), o.at("value"));
            } else {
                throw std::invalid_argument(path + ": neither an object nor an array");
            }
        } else if (name == "replace") {
            step(*parent, last, path) = o.at("value");
        } else if (name == "remove") {
            step(*parent, last, path);
            if (parent->is_object())
                parent->as_object().erase(last);
            else
                parent->as_array().erase(parent->as_array().begin() +
                                         static_cast<std::ptrdiff_t>(index_of(last, parent->as_array().size(), path)));
        } else {
            throw std::invalid_argument("unsupported op " + name);
        }
    }
    return document;
}

}  // namespace liveupdate::tests
