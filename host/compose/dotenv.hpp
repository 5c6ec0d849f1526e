// The `.env` file beside a compose file: KEY=VALUE lines, as Compose reads
// them. "export " prefixes and "#" comments are allowed; 'single quotes' are
// literal; "double quotes" take \n, \t, \\ and \" escapes; unquoted values
// lose a trailing " # comment". Unquoted and double-quoted values are
// interpolated from the lookup, then from the lines above.
#pragma once

#include <map>
#include <stdexcept>
#include <string>
#include <string_view>

#include "host/compose/interpolation.hpp"

namespace liveupdate::host::compose {

// what(): "line N: why".
class DotenvError : public std::runtime_error {
public:
    DotenvError(int line, const std::string &why)
        : std::runtime_error("line " + std::to_string(line) + ": " + why), line_(line) {}
    int line() const { return line_; }

private:
    int line_;
};

// Throws DotenvError for a line that is not KEY=VALUE, an unclosed quote, or
// a failing interpolation.
std::map<std::string, std::string> parse_dotenv(std::string_view text, const VariableLookup &environment);

}  // namespace liveupdate::host::compose
