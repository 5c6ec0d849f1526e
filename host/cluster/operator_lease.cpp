#include "host/cluster/operator_lease.hpp"

#include <boost/json.hpp>

#include "common/json_fields.hpp"
#include "common/mutex.hpp"
#include "host/cluster/lease_rules.hpp"
#include "host/cluster/operator_process.hpp"

namespace liveupdate::host::cluster {
namespace json = boost::json;

namespace {

common::MicroTime now() { return common::MicroTime::from_system(std::chrono::system_clock::now()); }

constexpr int kAttempts = 4;  // a 409 (another writer in between) reads again

}  // namespace

OperatorLease::OperatorLease(kube::ApiClient &client, std::string namespace_name, OperatorProcess me,
                             int duration_seconds)
    : client_(client),
      namespace_(std::move(namespace_name)),
      me_(std::move(me)),
      identity_(format_operator_identity(me_)),
      duration_seconds_(duration_seconds) {}

OperatorLease::~OperatorLease() { release(); }

std::string OperatorLease::path() const {
    return "/apis/coordination.k8s.io/v1/namespaces/" + kube::url_escape(namespace_) + "/leases";
}

std::string OperatorLease::acquire() {
    for (int attempt = 0; attempt < kAttempts; ++attempt)
        if (std::optional<std::string> taken = try_acquire()) {
            held_ = true;
            return *taken;
        }
    throw std::runtime_error("lease " + namespace_ + "/" + kOperatorLeaseName +
                             ": changed by another writer on every attempt to take it");
}

// Ours (with the decision's note); nullopt: someone wrote it in between (read again).
std::optional<std::string> OperatorLease::try_acquire() {
    const std::string one = path() + "/" + kOperatorLeaseName;
    const kube::ApiResponse got = client_.request("GET", one);
    std::optional<json::object> lease;
    if (got.status == 200)
        lease = common::expect_object(common::parse_limited(got.body), "");
    else if (got.status != 404)
        throw kube::ApiError(got.status, kube::status_reason(got.body),
                             "GET " + one + ": " + std::to_string(got.status) + " " + kube::status_message(got.body));
    std::optional<json::object> spec;
    if (lease)
        if (const json::object *s = common::object_field(*lease, {"spec"})) spec = *s;
    const auto holder_gone = [this](const std::string &holder) { return may_take_over(holder, me_, read_pid_state); };
    const LeaseDecision decision = decide_lease(lease ? std::optional(spec.value_or(json::object())) : std::nullopt,
                                                identity_, now(), holder_gone);
    if (decision.action == LeaseDecision::Action::refuse)
        throw std::runtime_error("namespace " + namespace_ + " already has an operator: lease " + namespace_ + "/" +
                                 kOperatorLeaseName + " is " + decision.message);
    json::object body{{"apiVersion", "coordination.k8s.io/v1"},
                      {"kind", "Lease"},
                      {"metadata", json::object{{"name", kOperatorLeaseName}, {"namespace", namespace_}}},
                      {"spec", next_lease_spec(spec, decision.action, identity_, now(), duration_seconds_)}};
    if (lease)
        body["metadata"].as_object()["resourceVersion"] = common::string_field(*lease, {"metadata", "resourceVersion"});
    const bool create = decision.action == LeaseDecision::Action::create;
    const kube::ApiResponse put =
        client_.request(create ? "POST" : "PUT", create ? path() : one, json::serialize(body));
    if (put.status / 100 == 2) return decision.message;
    if (put.status == 409) return std::nullopt;
    throw kube::ApiError(
        put.status, kube::status_reason(put.body),
        (create ? "POST " : "PUT ") + one + ": " + std::to_string(put.status) + " " + kube::status_message(put.body));
}

void OperatorLease::start_renewing(WarnFn warn) {
    warn_ = std::move(warn);
    thread_ = std::thread([this] { renew_loop(); });
}

void OperatorLease::renew_loop() {
    const auto every = std::chrono::milliseconds(duration_seconds_ * 1000 / 3);
    common::MutexLock lock(mutex_);
    while (!lock.wait_for(wake_, every, [this]() LU_REQUIRES(mutex_) { return stopping_; })) {
        lock.unlock();
        try {
            if (const std::string taken = acquire(); !taken.empty()) warn_("operator lease: " + taken);
        } catch (const std::exception &e) {
            warn_("operator lease: cannot renew: " + std::string(e.what()));
        }
        lock.lock();
    }
}

void OperatorLease::release() {
    {
        common::MutexLock lock(mutex_);
        stopping_ = true;
    }
    wake_.notify_all();
    if (thread_.joinable()) thread_.join();
    if (!held_) return;
    held_ = false;
    const std::string one = path() + "/" + kOperatorLeaseName;
    try {
        const kube::ApiResponse got = client_.request("GET", one);
        if (got.status != 200) return;
        const json::value lease = common::parse_limited(got.body);
        if (common::string_field(lease, {"spec", "holderIdentity"}) != identity_) return;
        const json::object options{
            {"apiVersion", "v1"},
            {"kind", "DeleteOptions"},
            {"preconditions",
             json::object{{"resourceVersion", common::string_field(lease, {"metadata", "resourceVersion"})}}}};
        const kube::ApiResponse deleted = client_.request("DELETE", one, json::serialize(options));
        if (deleted.status / 100 != 2 && deleted.status != 404 && warn_)
            warn_("operator lease: not released (it expires on its own): DELETE " + one + ": " +
                  std::to_string(deleted.status) + " " + kube::status_message(deleted.body));
    } catch (const std::exception &e) {
        if (warn_) warn_("operator lease: not released (it expires on its own): " + std::string(e.what()));
    }
}

}  // namespace liveupdate::host::cluster
