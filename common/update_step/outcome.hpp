// How an update ended, as the host reports it to the plugin
// (liveupdate_plugin.h's OUTCOME): {"ok": true} | {"runFailure": {"message",
// "exitCode"}} | {"infraFailure": message} | {"containerNotRunning": message}.
// The value is the SDK's updater::Outcome, the one outcome type of host,
// plugin and updaters.
#pragma once

#include <string>

#include <boost/json.hpp>

#include "liveupdate/updater.hpp"

namespace liveupdate::update_step {

// An ok outcome's message is not written: the plugin has no use for it.
boost::json::object encode(const updater::Outcome &outcome);

// path: where the outcome stands ("outcomes[2]"), "" for a whole document.
// Throws common::DecodeError naming the member: exactly one key, "ok" only
// as true, a run failure's "exitCode" required and its "message" optional.
updater::Outcome decode_outcome(const boost::json::value &value, const std::string &path);

}  // namespace liveupdate::update_step
