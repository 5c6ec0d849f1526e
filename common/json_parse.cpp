#include "common/json_parse.hpp"

#include <boost/json/basic_parser_impl.hpp>

#include <algorithm>
#include <cmath>
#include <optional>
#include <unordered_map>
#include <vector>

namespace liveupdate::common {
namespace {

namespace json = boost::json;

struct TextPosition {
    std::size_t line;
    std::size_t column;
};

TextPosition position_of(std::string_view text, std::size_t offset) {
    const std::string_view before = text.substr(0, std::min(offset, text.size()));
    const std::size_t line_start = before.rfind('\n');
    return {1 + static_cast<std::size_t>(std::count(before.begin(), before.end(), '\n')),
            before.size() - (line_start == std::string_view::npos ? 0 : line_start + 1) + 1};
}

// The offset of the first byte that is not part of well-formed UTF-8, or npos.
std::size_t first_invalid_utf8(std::string_view text) {
    const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
    for (std::size_t i = 0; i < text.size();) {
        const unsigned char b = byte(i);
        std::size_t length = 0;
        unsigned char low = 0x80;
        unsigned char high = 0xBF;
        if (b < 0x80) {
            ++i;
            continue;
        }
        if (b >= 0xC2 && b <= 0xDF) {
            length = 2;
        } else if (b >= 0xE0 && b <= 0xEF) {
            length = 3;
            if (b == 0xE0) low = 0xA0;   // no overlong form
            if (b == 0xED) high = 0x9F;  // no surrogate
        } else if (b >= 0xF0 && b <= 0xF4) {
            length = 4;
            if (b == 0xF0) low = 0x90;   // no overlong form
            if (b == 0xF4) high = 0x8F;  // nothing past U+10FFFF
        } else {
            return i;
        }
        if (i + length > text.size()) return i;
        if (byte(i + 1) < low || byte(i + 1) > high) return i;
        for (std::size_t k = 2; k < length; ++k)
            if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) return i;
        i += length;
    }
    return std::string_view::npos;
}

// Builds the value as Boost.JSON's own parser does (a value_stack), and keeps
// the path being read and the keys of every open object.
class CheckingHandler {
public:
    static constexpr std::size_t max_object_size = json::object::max_size();
    static constexpr std::size_t max_array_size = json::array::max_size();
    static constexpr std::size_t max_key_size = json::string::max_size();
    static constexpr std::size_t max_string_size = json::string::max_size();

    CheckingHandler(std::string_view text, json::storage_ptr storage) : text_(text), storage_(std::move(storage)) {}

    bool on_document_begin(json::error_code &) {
        stack_.reset(storage_);
        return true;
    }
    bool on_document_end(json::error_code &) { return true; }
    bool on_object_begin(json::error_code &) {
        open_.push_back({true, 0, {}, {}});
        return true;
    }
    bool on_object_end(std::size_t n, json::error_code &) {
        open_.pop_back();
        stack_.push_object(n);
        return value_done();
    }
    bool on_array_begin(json::error_code &) {
        open_.push_back({false, 0, {}, {}});
        return true;
    }
    bool on_array_end(std::size_t n, json::error_code &) {
        open_.pop_back();
        stack_.push_array(n);
        return value_done();
    }
    bool on_key_part(json::string_view s, std::size_t, json::error_code &) {
        stack_.push_chars(s);
        key_.append(s.data(), s.size());
        return true;
    }
    bool on_key(json::string_view s, std::size_t n, json::error_code &ec) {
        stack_.push_key(s);
        key_.append(s.data(), s.size());
        // An unescaped key is read in place: its offset is where it starts (at its quote).
        std::optional<std::size_t> offset;
        if (n == s.size())
            if (const auto start = in_text(s)) offset = *start - 1;
        Open &object = open_.back();
        const auto [first, added] = object.keys.try_emplace(key_, offset);
        object.key = std::move(key_);
        key_.clear();
        if (added) return true;
        std::string why = "duplicate key \"" + object.key + "\"";
        if (first->second) why += " (first at line " + std::to_string(position_of(text_, *first->second).line) + ")";
        return fail(ec, path(open_.size() - 1), std::move(why), offset);
    }
    bool on_string_part(json::string_view s, std::size_t, json::error_code &) {
        stack_.push_chars(s);
        return true;
    }
    bool on_string(json::string_view s, std::size_t, json::error_code &) {
        stack_.push_string(s);
        return value_done();
    }
    bool on_number_part(json::string_view, json::error_code &) { return true; }
    bool on_int64(std::int64_t i, json::string_view, json::error_code &) {
        stack_.push_int64(i);
        return value_done();
    }
    bool on_uint64(std::uint64_t u, json::string_view, json::error_code &) {
        stack_.push_uint64(u);
        return value_done();
    }
    bool on_double(double d, json::string_view s, json::error_code &ec) {
        if (!std::isfinite(d)) return fail(ec, path(open_.size()), "number out of range", in_text(s));
        stack_.push_double(d);
        return value_done();
    }
    bool on_bool(bool b, json::error_code &) {
        stack_.push_bool(b);
        return value_done();
    }
    bool on_null(json::error_code &) {
        stack_.push_null();
        return value_done();
    }
    bool on_comment_part(json::string_view, json::error_code &) { return true; }
    bool on_comment(json::string_view, json::error_code &) { return true; }

    json::value release() { return stack_.release(); }
    // The path of the value being read when the parser stopped.
    std::string path_here() const { return path(open_.size()); }

    struct Refusal {
        std::string field;
        std::string why;
        std::optional<std::size_t> offset;  // where the parser stopped when not known
    };
    const std::optional<Refusal> &refusal() const { return refusal_; }

private:
    struct Open {
        bool object;
        std::size_t items;                                                 // of an array: values read so far
        std::string key;                                                   // of an object: the key read last
        std::unordered_map<std::string, std::optional<std::size_t>> keys;  // with the offset of each
    };

    // The offset of s when the parser handed it over in place (the whole text
    // is given in one write: a token is split only by escapes); none when the
    // text came in pieces.
    std::optional<std::size_t> in_text(json::string_view s) const {
        if (text_.empty() || s.data() < text_.data() || s.data() + s.size() > text_.data() + text_.size())
            return std::nullopt;
        return static_cast<std::size_t>(s.data() - text_.data());
    }

    bool value_done() {
        if (!open_.empty() && !open_.back().object) ++open_.back().items;
        return true;
    }

    // `spec.syncs[0].containerPath`: the first `depth` open containers' parts.
    std::string path(std::size_t depth) const {
        std::string out;
        for (std::size_t i = 0; i < depth && i < open_.size(); ++i) {
            if (!open_[i].object) {
                out += "[" + std::to_string(open_[i].items) + "]";
            } else {
                if (!out.empty()) out += '.';
                out += open_[i].key;
            }
        }
        return out;
    }

    bool fail(json::error_code &ec, std::string field, std::string why, std::optional<std::size_t> offset) {
        refusal_ = Refusal{std::move(field), std::move(why), offset};
        ec = json::error::exception;
        return false;
    }

    std::string_view text_;
    json::storage_ptr storage_;
    json::value_stack stack_;
    std::vector<Open> open_;
    std::string key_;
    std::optional<Refusal> refusal_;
};

std::string message_of(std::size_t line, std::size_t column, const std::string &field, const std::string &why) {
    std::string out = "line " + std::to_string(line) + ", column " + std::to_string(column) + ": ";
    if (!field.empty()) out += field + ": ";
    return out + why;
}

}  // namespace

JsonParseError::JsonParseError(std::size_t line, std::size_t column, std::string field, std::string why,
                               bool incomplete)
    : std::runtime_error(message_of(line, column, field, why)),
      line_(line),
      column_(column),
      field_(std::move(field)),
      why_(std::move(why)),
      incomplete_(incomplete) {}

json::value parse_json(std::string_view text, std::size_t max_depth, json::storage_ptr storage) {
    json::parse_options options;
    options.max_depth = max_depth;
    json::basic_parser<CheckingHandler> parser(options, text, std::move(storage));
    json::error_code ec;
    std::size_t consumed = parser.write_some(false, text.data(), text.size(), ec);
    if (!ec && consumed < text.size()) ec = json::error::extra_data;
    if (!ec) return parser.handler().release();

    const auto &refusal = parser.handler().refusal();
    if (refusal) {
        const TextPosition at = position_of(text, refusal->offset.value_or(consumed));
        throw JsonParseError(at.line, at.column, refusal->field, refusal->why, false);
    }
    std::string why = ec.message();
    if (ec == json::error::too_deep) why = "nested deeper than " + std::to_string(max_depth) + " levels";
    if (ec == json::error::syntax) {
        // Boost.JSON calls a byte that is not UTF-8 a syntax error.
        const std::size_t bad = first_invalid_utf8(text);
        if (bad != std::string_view::npos && bad <= consumed + 3) {
            consumed = bad;
            why = "invalid UTF-8";
        }
    }
    const TextPosition at = position_of(text, consumed);
    throw JsonParseError(at.line, at.column, parser.handler().path_here(), why, ec == json::error::incomplete);
}

std::optional<json::value> parse_json_pieces(std::initializer_list<std::string_view> pieces, std::size_t max_depth,
                                             json::storage_ptr storage) {
    json::parse_options options;
    options.max_depth = max_depth;
    json::basic_parser<CheckingHandler> parser(options, std::string_view(), std::move(storage));
    json::error_code ec;
    std::size_t left = pieces.size();
    for (const std::string_view piece : pieces) {
        --left;
        const std::size_t consumed = parser.write_some(left > 0, piece.data(), piece.size(), ec);
        if (ec || consumed < piece.size()) return std::nullopt;
    }
    return parser.handler().release();
}

}  // namespace liveupdate::common
