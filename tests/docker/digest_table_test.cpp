// The digest extension's face shared by the agent updaters
// (updaters/shared/digest_table.hpp): the host's scope becomes the agent's
// request, the agent's outcome the ABI's return code with a message naming
// the updater, and each entry reaches the host's callback.
#include "updaters/shared/digest_table.hpp"

#include <boost/test/unit_test.hpp>
#include <string>
#include <vector>

#include "common/tree_digest/tree_digest.hpp"

namespace ac = liveupdate::agent_client;
namespace ap = liveupdate::agent_protocol;
using liveupdate::updaters::digest_request;
using liveupdate::updaters::digest_through_agent;
using liveupdate::updaters::keep_going_of;

namespace {

constexpr lu_str path_of(const char *text, std::size_t size) { return {text, size}; }
const lu_str kApp = path_of("/app", 4);

struct Seen {
    std::vector<std::string> paths;
    std::vector<std::uint64_t> hashes;
};

int32_t collect(void *ctx, const lu_digest_entry *entry) {
    auto &seen = *static_cast<Seen *>(ctx);
    seen.paths.emplace_back(entry->path.data, entry->path.size);
    seen.hashes.push_back(entry->hash);
    return 0;
}

// digest_through_agent with an agent that answers `outcome` after handing out one entry.
struct Call {
    int32_t rc = LU_OK;
    std::string message;
    Seen seen;
    ap::Digest asked;
};

Call call_with(const ac::DigestOutcome &outcome, const lu_digest_scope *scope = nullptr) {
    Call call;
    lu_message error{nullptr, 0};
    call.rc = digest_through_agent(
        "kubernetes",
        [&](const ap::Digest &request, const ac::DigestEntryFn &each, const std::function<bool()> &) {
            call.asked = request;
            ap::DigestEntry entry;
            entry.path = "a.txt";
            entry.kind = static_cast<std::uint8_t>(ap::EntryType::file);
            entry.hash = 42;
            each(entry);
            return outcome;
        },
        kApp, scope, collect, &call.seen, &error);
    call.message = std::string(liveupdate::abi::to_view(error));
    liveupdate::abi::release_message(&error);
    return call;
}

}  // namespace

BOOST_AUTO_TEST_CASE(an_agent_digest_outcome_becomes_the_abis_return_code_naming_the_updater) {
    const Call ok = call_with({});
    BOOST_TEST(ok.rc == LU_OK);
    BOOST_TEST(ok.message.empty());
    BOOST_TEST(ok.seen.paths == std::vector<std::string>{"a.txt"});
    BOOST_TEST(ok.seen.hashes == std::vector<std::uint64_t>{42});
    BOOST_TEST(call_with({ac::DigestOutcome::Kind::stopped, {}}).rc == LU_ERR_STATE);
    const Call missing = call_with({ac::DigestOutcome::Kind::not_found, "nothing at /app in pod ns/web"});
    BOOST_TEST(missing.rc == LU_ERR_NOT_FOUND);
    BOOST_TEST(missing.message == "kubernetes updater: nothing at /app in pod ns/web");
    const Call no_agent = call_with({ac::DigestOutcome::Kind::unavailable, "verify needs lu-agent in the container"});
    BOOST_TEST(no_agent.rc == LU_ERR_UNSUPPORTED);
    BOOST_TEST(no_agent.message == "kubernetes updater: verify needs lu-agent in the container");
    const Call broke = call_with({ac::DigestOutcome::Kind::failed, "the session broke"});
    BOOST_TEST(broke.rc == LU_ERR_INTERNAL);
    BOOST_TEST(broke.message == "kubernetes updater: the session broke");
}

BOOST_AUTO_TEST_CASE(a_throwing_digest_is_an_internal_error_and_bad_arguments_are_refused) {
    lu_message error{nullptr, 0};
    Seen seen;
    const auto throws = [](const ap::Digest &, const ac::DigestEntryFn &,
                           const std::function<bool()> &) -> ac::DigestOutcome {
        throw std::runtime_error("pod ns/web is gone");
    };
    BOOST_TEST(digest_through_agent("docker", throws, kApp, nullptr, collect, &seen, &error) == LU_ERR_INTERNAL);
    BOOST_TEST(liveupdate::abi::to_view(error) == "docker updater: pod ns/web is gone");
    liveupdate::abi::release_message(&error);
    BOOST_TEST(digest_through_agent("docker", throws, kApp, nullptr, nullptr, nullptr, &error) ==
               LU_ERR_INVALID_ARGUMENT);
    liveupdate::abi::release_message(&error);
    lu_digest_scope too_small{};
    too_small.struct_size = 8;
    BOOST_TEST(call_with({}, &too_small).rc == LU_ERR_INVALID_ARGUMENT);
    lu_digest_scope no_array{};
    no_array.struct_size = sizeof(lu_digest_scope);
    no_array.hash_path_count = 2;
    BOOST_TEST(call_with({}, &no_array).rc == LU_ERR_INVALID_ARGUMENT);
}

BOOST_AUTO_TEST_CASE(the_hosts_scope_becomes_the_agents_request) {
    const ap::Digest whole = digest_request(kApp, nullptr);
    BOOST_TEST(whole.path == "/app");
    BOOST_TEST(whole.hash_all == 1);
    BOOST_TEST(whole.max_bytes == liveupdate::tree_digest::kDefaultMaxBytes);
    BOOST_TEST(whole.max_ms == liveupdate::tree_digest::kDefaultMaxTime.count());

    const lu_str named[] = {path_of("gen/a.txt", 9), path_of("b", 1)};
    lu_digest_scope scope{};
    scope.struct_size = sizeof(lu_digest_scope);
    scope.hash_paths = named;
    scope.hash_path_count = 2;
    scope.max_bytes = 1000;
    scope.max_millis = std::uint64_t{1} << 40;  // beyond the agent's 32 bits: the most it takes
    const ap::Digest scoped = digest_request(kApp, &scope);
    BOOST_TEST(scoped.hash_all == 0);
    BOOST_TEST(scoped.hash_paths == (std::vector<std::string>{"gen/a.txt", "b"}));
    BOOST_TEST(scoped.max_bytes == 1000u);
    BOOST_TEST(scoped.max_ms == UINT32_MAX);
}

BOOST_AUTO_TEST_CASE(keep_going_is_read_only_from_a_scope_that_has_it) {
    int asked = 0;
    lu_digest_scope scope{};
    scope.struct_size = sizeof(lu_digest_scope);
    scope.keep_going = [](void *ctx) -> int32_t { return ++*static_cast<int *>(ctx) < 2 ? 1 : 0; };
    scope.keep_going_ctx = &asked;
    const auto keep_going = keep_going_of(&scope);
    BOOST_TEST_REQUIRE(static_cast<bool>(keep_going));
    BOOST_TEST(keep_going());
    BOOST_TEST(!keep_going());
    scope.struct_size = LU_DIGEST_SCOPE_SIZE_1_11;  // a 1.11 host's scope ends before keep_going
    BOOST_TEST(!keep_going_of(&scope));
    BOOST_TEST(!keep_going_of(nullptr));
}
