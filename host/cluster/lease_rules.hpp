// One operator per namespace: the rules of its coordination.k8s.io/v1 Lease.
// A Lease that is absent, released (no holder) or expired (renewTime +
// leaseDurationSeconds past) is taken; one held by another live operator
// refuses with who holds it and since when. Pure: the caller reads and
// writes the Lease.
#pragma once

#include <optional>
#include <string>

#include <boost/json.hpp>

#include "common/micro_time.hpp"

namespace liveupdate::host::cluster {

inline constexpr const char *kOperatorLeaseName = "lu-host-operator";

struct LeaseDecision {
    enum class Action { create, take, renew, refuse };
    Action action = Action::refuse;
    std::string message;  // refuse: who holds it, since when, until when
};

// lease_spec: the Lease's spec, nullopt when there is no Lease.
LeaseDecision decide_lease(const std::optional<boost::json::object> &lease_spec, const std::string &me,
                           common::MicroTime now);

// The spec to write after decision (create, take or renew) of `previous`.
boost::json::object next_lease_spec(const std::optional<boost::json::object> &previous, LeaseDecision::Action action,
                                    const std::string &me, common::MicroTime now, int duration_seconds);

}  // namespace liveupdate::host::cluster
