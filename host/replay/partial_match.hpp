// PARTIAL matching of replay expectations (replay.md): objects match on the
// keys the expectation has, arrays element by element with the same length,
// scalars by equality, and single-key "$" objects are operators ($absent,
// $contains, $len, $any, $includes, $excludes).
#pragma once

#include <string>
#include <vector>

#include <boost/json.hpp>

namespace liveupdate::host::replay {

struct Mismatch {
    std::string path;      // e.g. "status.lu.containers[0].containerID"
    std::string expected;  // JSON text of the expectation
    std::string got;       // JSON text of the actual value, or "(absent)"
};

// actual == nullptr: the key is missing. Appends one Mismatch per failed check.
void match_partial(const boost::json::value &expected, const boost::json::value *actual, const std::string &path,
                   std::vector<Mismatch> &out);

// Throws std::invalid_argument naming the path when the expectation uses an
// unknown operator or an operand of the wrong type.
void check_partial(const boost::json::value &expected, const std::string &path);

// Joins a JSON path: join_key("a", "b") == "a.b", join_key("", "b") == "b".
std::string join_key(const std::string &path, std::string_view key);

}  // namespace liveupdate::host::replay
