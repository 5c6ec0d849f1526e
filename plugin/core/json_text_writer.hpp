// Writes JSON text straight into a string: snapshots are megabytes of
// documents the engine already holds, and building a tree of them first would
// copy each one. Separators go where the nesting says; the text is byte for
// byte what Boost.JSON's serializer writes for the same values.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <boost/json.hpp>

namespace liveupdate {

class JsonTextWriter {
public:
    explicit JsonTextWriter(std::size_t size_hint);

    void begin_object();
    void end_object();
    void begin_array();
    void end_array();
    void key(std::string_view name);  // inside an object, before its value

    void null();
    void boolean(bool b);
    void integer(std::int64_t i);
    void string(std::string_view s);
    void value(const boost::json::value &v);
    // Elements another writer wrote at its top level, as the next elements here.
    void splice(std::string_view elements);

    std::size_t size() const { return out_.size(); }
    std::string take() { return std::move(out_); }

private:
    void separate();
    void open(char bracket);
    void close(char bracket);
    void quoted(std::string_view s);
    void unsigned_integer(std::uint64_t u);
    void through_serializer();

    std::string out_;
    std::vector<char> empty_;  // per open level (the top one too): nothing written in it yet
    bool after_key_ = false;
    boost::json::serializer serializer_;
    char buffer_[4096];
};

}  // namespace liveupdate
