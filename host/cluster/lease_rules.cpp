#include "host/cluster/lease_rules.hpp"

#include "common/json_fields.hpp"

namespace liveupdate::host::cluster {
namespace json = boost::json;

namespace {

using Action = LeaseDecision::Action;

std::int64_t duration_micros(const json::object &spec) {
    return common::int_field(spec, {"leaseDurationSeconds"}) * 1'000'000;
}

common::MicroTime time_at(const json::object &spec, std::string_view key) {
    return common::MicroTime::parse(common::string_field(spec, {key})).value_or(common::MicroTime());
}

}  // namespace

LeaseDecision decide_lease(const std::optional<json::object> &lease_spec, const std::string &me, common::MicroTime now,
                           const HolderGoneFn &holder_gone) {
    if (!lease_spec) return {Action::create, {}};
    const std::string holder = common::string_field(*lease_spec, {"holderIdentity"});
    if (holder.empty()) return {Action::take, {}};
    if (holder == me) return {Action::renew, {}};
    const common::MicroTime renewed = time_at(*lease_spec, "renewTime");
    const common::MicroTime expires(renewed.micros() + duration_micros(*lease_spec));
    if (expires <= now) return {Action::take, {}};
    if (holder_gone(holder))
        return {Action::take, "taken over at once from " + holder +
                                  ": its process on this host is gone (the Lease would have expired " +
                                  expires.format() + ")"};
    std::string since = common::string_field(*lease_spec, {"acquireTime"});
    if (since.empty()) since = "an unknown time";
    return {Action::refuse, "held by " + holder + " since " + since + " (renewed " + renewed.format() +
                                "; it expires " + expires.format() + " unless renewed)"};
}

json::object next_lease_spec(const std::optional<json::object> &previous, Action action, const std::string &me,
                             common::MicroTime now, int duration_seconds) {
    json::object spec{{"holderIdentity", me},
                      {"leaseDurationSeconds", duration_seconds},
                      {"acquireTime", now.format()},
                      {"renewTime", now.format()},
                      {"leaseTransitions", 0}};
    if (!previous) return spec;
    std::int64_t transitions = common::int_field(*previous, "leaseTransitions", "spec");
    if (action == Action::renew) {
        if (const json::value *acquired = common::member(*previous, "acquireTime")) spec["acquireTime"] = *acquired;
    } else {
        ++transitions;
    }
    spec["leaseTransitions"] = transitions;
    return spec;
}

}  // namespace liveupdate::host::cluster
