// The one JSON parse of documents people or other programs write (object
// files, objects given to the engine, updaters' answers). Boost.JSON keeps the
// last of a key given twice without a word, reads 1e99999 as infinity (which
// no serializer writes back as JSON) and calls invalid UTF-8 a "syntax
// error": this parse refuses all three, and every error says where (line and
// column of the text, from 1) and in which field.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include <boost/json.hpp>

namespace liveupdate::common {

class JsonParseError : public std::runtime_error {
public:
    // field: the path being read (`spec.syncs[0].containerPath`), "" for the
    // document itself; why: what is wrong there.
    JsonParseError(std::size_t line, std::size_t column, std::string field, std::string why, bool incomplete);
    std::size_t line() const { return line_; }
    std::size_t column() const { return column_; }
    const std::string &field() const { return field_; }
    const std::string &why() const { return why_; }
    // The text ended early (maybe a write still under way).
    bool incomplete() const { return incomplete_; }

private:
    std::size_t line_;
    std::size_t column_;
    std::string field_;
    std::string why_;
    bool incomplete_;
};

// One JSON value, nested at most max_depth deep; the value is allocated from
// storage. Throws JsonParseError.
boost::json::value parse_json(std::string_view text, std::size_t max_depth, boost::json::storage_ptr storage = {});

// The same rules for one value given as consecutive pieces of text (split by
// the caller to spare a copy): nullopt when the pieces make no value the
// rules accept; the caller parses its whole text again for the error's place.
std::optional<boost::json::value> parse_json_pieces(std::initializer_list<std::string_view> pieces,
                                                    std::size_t max_depth, boost::json::storage_ptr storage = {});

}  // namespace liveupdate::common
