// JSON for people: indented (`lu-host describe`), or a member as one cell of
// a table (`lu-host plugins`, `lu-host version`).
#pragma once

#include <string>
#include <string_view>

#include <boost/json.hpp>

namespace liveupdate::host::cli {

std::string pretty_json(const boost::json::value &value, int indent = 0);

// A string as is, a list of strings joined by commas, another value as JSON;
// "-" when absent, null or an empty list.
std::string cell_text(const boost::json::object &row, std::string_view key);

}  // namespace liveupdate::host::cli
