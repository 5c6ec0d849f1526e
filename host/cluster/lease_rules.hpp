// One operator per namespace: the rules of its coordination.k8s.io/v1 Lease.
// A Lease that is absent, released (no holder) or expired (renewTime +
// leaseDurationSeconds past) is taken; so is one whose holder's process is
// gone (holder_gone: operator_identity.hpp's may_take_over), at once; one
// held by another live operator refuses with who holds it and since when.
// Pure: the caller reads and writes the Lease.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include <boost/json.hpp>

#include "common/micro_time.hpp"

namespace liveupdate::host::cluster {

inline constexpr const char *kOperatorLeaseName = "lu-host-operator";

struct LeaseDecision {
    enum class Action { create, take, renew, refuse };
    Action action = Action::refuse;
    // refuse: who holds it, since when, until when; take of a live Lease: whose it was and why it was taken.
    std::string message;
};

// Whether the holder of a Lease not yet expired is gone, its Lease ours to take.
using HolderGoneFn = std::function<bool(const std::string &holder)>;

// lease_spec: the Lease's spec, nullopt when there is no Lease.
LeaseDecision decide_lease(const std::optional<boost::json::object> &lease_spec, const std::string &me,
                           common::MicroTime now, const HolderGoneFn &holder_gone);

// The spec to write after decision (create, take or renew) of `previous`.
boost::json::object next_lease_spec(const std::optional<boost::json::object> &previous, LeaseDecision::Action action,
                                    const std::string &me, common::MicroTime now, int duration_seconds);

}  // namespace liveupdate::host::cluster
