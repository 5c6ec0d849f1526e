// How an update ended, as the host reports it to the plugin
// (liveupdate_plugin.h's OUTCOME): {"ok": true} | {"runFailure": {"message",
// "exitCode"}} | {"infraFailure": message} | {"containerNotRunning": message},
// each with, when the updater said them, "agent": "none" | "injected" |
// "copied" (how it reached into the container) and "processRestarted": true.
// The value is the SDK's updater::Outcome, the one outcome type of host,
// plugin and updaters.
#pragma once

#include <string>
#include <string_view>

#include <boost/json.hpp>

#include "liveupdate/updater.hpp"

namespace liveupdate::update_step {

// "agent"'s spelling; "" for unknown (then the member is left out).
std::string_view agent_source_text(updater::AgentSource source);

// An ok outcome's message is not written: the plugin has no use for it; nor
// are an unknown agent and no restart (outcomes of updaters that say neither
// stay as they were).
boost::json::object encode(const updater::Outcome &outcome);

// path: where the outcome stands ("outcomes[2]"), "" for a whole document.
// Throws common::DecodeError naming the member: exactly one kind key, "ok"
// only as true, a run failure's "exitCode" required and its "message"
// optional; "agent" one of its spellings, "processRestarted" a boolean.
updater::Outcome decode_outcome(const boost::json::value &value, const std::string &path);

}  // namespace liveupdate::update_step
