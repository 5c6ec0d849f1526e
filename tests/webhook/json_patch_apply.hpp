// RFC 6902 add, replace and remove applied to a document, as the API server
// applies a webhook's patch: for tests of what the webhook answers.
#pragma once

#include <boost/json.hpp>

namespace liveupdate::tests {

// Throws std::invalid_argument naming the operation that does not apply.
boost::json::value apply_json_patch(boost::json::value document, const boost::json::array &patch);

}  // namespace liveupdate::tests
