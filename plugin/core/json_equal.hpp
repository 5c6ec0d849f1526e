// Deep equality of JSON values with Boost.JSON's meaning: object members in
// any order, an integer equal across int64 and uint64, a double only to a
// double. Boost 1.81's object::equal copies every member it visits (a loop
// by value), and the reconciler compares specs, statuses and snapshot
// objects on every reconcile and restore.
#pragma once

#include <boost/json.hpp>

namespace liveupdate {

bool json_equal(const boost::json::value &a, const boost::json::value &b) noexcept;

}  // namespace liveupdate
