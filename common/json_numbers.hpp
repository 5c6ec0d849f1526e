// JSON numbers compared by value, as a reader of the text would: 3, 3u and
// 3.0 are one number. Boost.JSON's == keeps int64, uint64 and double apart,
// which makes a status read back from the API server (or a replay's expected
// value) differ from the one written.
#pragma once

#include <boost/json.hpp>

namespace liveupdate::common {

// Both a and b must be numbers.
bool same_number(const boost::json::value &a, const boost::json::value &b);

}  // namespace liveupdate::common
