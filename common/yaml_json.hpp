// YAML documents (yaml-cpp) as JSON values: a multi-document stream
// ("---" separated), as `tilt get -o yaml` and kubectl print objects. Plain
// scalars take their YAML 1.2 core types (true/false, null/~, integers,
// floats), quoted ones stay strings; keys are strings.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <boost/json.hpp>

namespace liveupdate::common {

// what(): "line L, column C: why" (from 1); just "why" for an error of the
// whole text (line() and column() 0: the parser did not finish).
class YamlError : public std::runtime_error {
public:
    explicit YamlError(const std::string &why) : std::runtime_error(why), line_(0), column_(0) {}
    YamlError(int line, int column, const std::string &why)
        : std::runtime_error("line " + std::to_string(line) + ", column " + std::to_string(column) + ": " + why),
          line_(line),
          column_(column) {}
    int line() const { return line_; }
    int column() const { return column_; }

private:
    int line_;
    int column_;
};

// Empty documents are left out. Throws YamlError for malformed YAML, a key
// twice in one map, an alias cycle, nesting deeper than 64, a parse past its
// limits (common/yaml_load), and for what JSON cannot carry: text that is
// not UTF-8, a number out of a double's range. Errors in a value name its
// path (`spec.syncs[0].containerPath: invalid UTF-8`).
std::vector<boost::json::value> yaml_documents(std::string_view text);

}  // namespace liveupdate::common
