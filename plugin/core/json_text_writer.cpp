#include "plugin/core/json_text_writer.hpp"

#include <algorithm>
#include <charconv>

namespace liveupdate {
namespace json = boost::json;

JsonTextWriter::JsonTextWriter(std::size_t size_hint) : empty_{1} { out_.reserve(size_hint); }

void JsonTextWriter::separate() {
    if (after_key_) {
        after_key_ = false;
        return;
    }
    if (empty_.back() == 0) out_ += ',';
    empty_.back() = 0;
}

void JsonTextWriter::open(char bracket) {
    separate();
    out_ += bracket;
    empty_.push_back(1);
}

void JsonTextWriter::close(char bracket) {
    out_ += bracket;
    empty_.pop_back();
}

void JsonTextWriter::begin_object() { open('{'); }
void JsonTextWriter::end_object() { close('}'); }
void JsonTextWriter::begin_array() { open('['); }
void JsonTextWriter::end_array() { close(']'); }

void JsonTextWriter::key(std::string_view name) {
    separate();
    quoted(name);
    out_ += ':';
    after_key_ = true;
}

void JsonTextWriter::null() {
    separate();
    out_.append("null");
}

void JsonTextWriter::boolean(bool b) {
    separate();
    out_.append(b ? "true" : "false");
}

void JsonTextWriter::integer(std::int64_t i) {
    separate();
    char text[24];
    out_.append(text, std::to_chars(text, text + sizeof text, i).ptr);
}

void JsonTextWriter::unsigned_integer(std::uint64_t u) {
    separate();
    char text[24];
    out_.append(text, std::to_chars(text, text + sizeof text, u).ptr);
}

void JsonTextWriter::string(std::string_view s) {
    separate();
    quoted(s);
}

void JsonTextWriter::quoted(std::string_view s) {
    // Most strings need no escaping: written as they are, as the serializer would.
    const bool plain = std::none_of(
        s.begin(), s.end(), [](char c) { return c == '"' || c == '\\' || static_cast<unsigned char>(c) < 0x20; });
    if (!plain) {
        serializer_.reset(json::string_view(s.data(), s.size()));
        through_serializer();
        return;
    }
    out_ += '"';
    out_.append(s);
    out_ += '"';
}

// Boost's serializer was half of a snapshot's time: the common kinds are
// written here; doubles go to it, so the text stays what it writes.
void JsonTextWriter::value(const json::value &v) {
    switch (v.kind()) {
    case json::kind::null: null(); return;
    case json::kind::bool_: boolean(v.get_bool()); return;
    case json::kind::int64: integer(v.get_int64()); return;
    case json::kind::uint64: unsigned_integer(v.get_uint64()); return;
    case json::kind::string: string(v.get_string()); return;
    case json::kind::array:
        begin_array();
        for (const json::value &element : v.get_array()) value(element);
        end_array();
        return;
    case json::kind::object:
        begin_object();
        for (const json::key_value_pair &member : v.get_object()) {
            key(member.key());
            value(member.value());
        }
        end_object();
        return;
    case json::kind::double_:
        separate();
        serializer_.reset(&v);
        through_serializer();
        return;
    }
}

void JsonTextWriter::splice(std::string_view elements) {
    if (elements.empty()) return;
    separate();
    out_.append(elements);
}

void JsonTextWriter::through_serializer() {
    while (!serializer_.done()) {
        const auto part = serializer_.read(buffer_, sizeof buffer_);
        out_.append(part.data(), part.size());
    }
}

}  // namespace liveupdate
