// The liveupdate plugin's side of the ABI rules, through the real plugin file
// and a plugin that answers as a newer or broken one would:
//  - the engine host table is read only as far as its struct_size says;
//  - get_extension is asked only of a table that has it;
//  - step documents carry their version and the host refuses one it does not read;
//  - admission results are told apart by result code, not by their text.
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstring>
#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "host/core/host_error.hpp"
#include "host/core/plugin_instance.hpp"
#include "host/core/plugin_message.hpp"
#include "liveupdate/ext/sync_targets.h"
#include "liveupdate/liveupdate.hpp"

using namespace liveupdate::host;
using liveupdate::abi::to_lu_str;
using liveupdate::common::MicroTime;
namespace json = boost::json;

namespace {

const MicroTime kStart = *MicroTime::parse("2026-01-01T00:00:00.000000Z");
constexpr const char *kOptions = R"({"startTime": "2026-01-01T00:00:00.000000Z"})";

struct Diagnostics {
    std::vector<std::string> lines;
    static void log(void *ctx, int32_t, lu_str line) {
        static_cast<Diagnostics *>(ctx)->lines.emplace_back(line.data, line.size);
    }
};

// Two pages, the second unreadable: a table placed at the end of the first
// faults on any read past its struct_size.
class GuardedPages {
public:
    GuardedPages() {
        memory_ = ::mmap(nullptr, 2 * page_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        BOOST_TEST_REQUIRE(memory_ != MAP_FAILED);
        BOOST_TEST_REQUIRE(::mprotect(static_cast<char *>(memory_) + page_, page_, PROT_NONE) == 0);
    }
    GuardedPages(const GuardedPages &) = delete;
    GuardedPages &operator=(const GuardedPages &) = delete;
    ~GuardedPages() { ::munmap(memory_, 2 * page_); }

    // The first size bytes of table, ending where the unreadable page begins.
    const lu_engine_host *place(const lu_engine_host &table, std::size_t size) {
        char *at = static_cast<char *>(memory_) + page_ - size;
        std::memcpy(at, &table, size);
        return reinterpret_cast<const lu_engine_host *>(at);
    }

private:
    std::size_t page_ = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
    void *memory_ = nullptr;
};

struct RealPlugin {
    std::shared_ptr<const LiveUpdatePlugin> plugin = LiveUpdatePlugin::load(LU_LIVEUPDATE_PLUGIN);
    const lu_liveupdate_api &api = plugin->api();

    // Creates an engine with host, checks it admits an object, destroys it.
    void create_and_use(const lu_engine_host *host) const {
        lu_engine *engine = nullptr;
        PluginMessage error(api.free_message);
        BOOST_TEST_REQUIRE(api.create(host, to_lu_str(kOptions), &engine, error.out()) == LU_OK, error.str());
        PluginMessage result(api.free_message);
        const std::string object = R"({"apiVersion": "tilt.dev/v1alpha1", "kind": "FileWatch",
            "metadata": {"name": "fw"}, "spec": {"watchedPaths": ["/tmp"]}})";
        BOOST_TEST(api.validate(engine, to_lu_str(object), result.out()) == LU_OK, result.str());
        api.destroy(engine);
    }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(engine_host_table)

BOOST_AUTO_TEST_CASE(todays_table_is_read_to_its_end_and_no_further) {
    RealPlugin real;
    Diagnostics diagnostics;
    const lu_engine_host table{sizeof(lu_engine_host), &diagnostics, &Diagnostics::log};
    GuardedPages pages;
    real.create_and_use(pages.place(table, sizeof table));
    BOOST_TEST_REQUIRE(diagnostics.lines.size() == 1u);
    BOOST_TEST(
        diagnostics.lines[0].find("host table of " + std::to_string(sizeof table) + " bytes") != std::string::npos,
        diagnostics.lines[0]);
}

BOOST_AUTO_TEST_CASE(an_older_smaller_table_is_not_read_past_its_struct_size) {
    RealPlugin real;
    constexpr std::size_t older = offsetof(lu_engine_host, log);  // a host from before the log member
    Diagnostics diagnostics;
    lu_engine_host table{older, &diagnostics, &Diagnostics::log};
    // In readable memory the member beyond struct_size is set, and must be ignored ...
    real.create_and_use(&table);
    BOOST_TEST(diagnostics.lines.empty());
    // ... and where memory ends with the table, nothing past it is touched.
    GuardedPages pages;
    real.create_and_use(pages.place(table, older));
    BOOST_TEST(diagnostics.lines.empty());
}

BOOST_AUTO_TEST_CASE(a_newer_larger_table_is_read_as_far_as_the_plugin_knows) {
    RealPlugin real;
    Diagnostics diagnostics;
    struct NewerHost {
        lu_engine_host known;
        void *later_member;
    } newer{{sizeof(NewerHost), &diagnostics, &Diagnostics::log}, nullptr};
    real.create_and_use(&newer.known);
    BOOST_TEST_REQUIRE(diagnostics.lines.size() == 1u);
    BOOST_TEST(diagnostics.lines[0].find("host table of " + std::to_string(sizeof newer) + " bytes") !=
               std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(liveupdate_table)

BOOST_AUTO_TEST_CASE(the_plugin_offers_sync_targets_and_no_unknown_extension) {
    RealPlugin real;
    BOOST_TEST(real.api.struct_size >= offsetof(lu_liveupdate_api, get_extension) + sizeof real.api.get_extension);
    BOOST_TEST_REQUIRE(real.api.get_extension != nullptr);
    const PluginInstance instance(real.plugin, kStart);
    BOOST_TEST(instance.extension(LU_SYNC_TARGETS_EXTENSION_ID) != nullptr);
    BOOST_TEST(instance.extension("liveupdate.engine.unknown/1") == nullptr);
    BOOST_TEST(instance.extension(nullptr) == nullptr);
}

BOOST_AUTO_TEST_CASE(sync_targets_answer_through_the_abi) {
    const PluginInstance instance(LiveUpdatePlugin::load(LU_LIVEUPDATE_PLUGIN), kStart);
    const auto absent = instance.sync_targets("absent");
    BOOST_TEST_REQUIRE(absent.has_value());
    BOOST_TEST(absent->rc == LU_ERR_NOT_FOUND);
    BOOST_TEST(absent->text == "LiveUpdate \"absent\" not found");
    const json::object admitted = instance.upsert(
        R"({"kind":"LiveUpdate","metadata":{"name":"lu"},"spec":{"basePath":"/src","selector":{"dockerCompose":{"service":"svc"}},"syncs":[{"localPath":".","containerPath":"/app"}]}})");
    BOOST_TEST_REQUIRE(admitted.at("accepted").as_bool());
    BOOST_TEST(instance.sync_targets("lu")->rc == LU_ERR_STATE);  // its service is not there yet
    instance.upsert(
        R"({"kind":"DockerComposeService","metadata":{"name":"svc"},"status":{"containerID":"c1","containerName":"web","containerState":{"status":"running"}}})");
    const auto answer = instance.sync_targets("lu");
    BOOST_TEST(answer->rc == LU_OK);
    const json::value doc = json::parse(answer->text);
    BOOST_TEST(doc.at("via").as_string() == "docker");
    BOOST_TEST(doc.at("containers").as_array().at(0).at("containerID").as_string() == "c1");
}

BOOST_AUTO_TEST_CASE(a_table_older_than_get_extension_is_not_asked) {
    const PluginInstance instance(LiveUpdatePlugin::load(LU_TEST_FUTURE_STEP_PLUGIN), kStart);
    BOOST_TEST(instance.extension("anything/1") == nullptr);
    BOOST_TEST(!instance.sync_targets("lu").has_value());
}

BOOST_AUTO_TEST_CASE(steps_carry_the_version_this_host_reads) {
    const PluginInstance instance(LiveUpdatePlugin::load(LU_LIVEUPDATE_PLUGIN), kStart);
    const PluginInstance::FirstStep opened = instance.reconcile_begin("absent", kStart);
    BOOST_TEST(opened.step.at("stepVersion").as_int64() == LU_STEP_VERSION);
    BOOST_TEST(opened.step.at("type").as_string() == "done");
}

BOOST_AUTO_TEST_CASE(a_step_of_an_unknown_version_is_refused_saying_so) {
    const PluginInstance instance(LiveUpdatePlugin::load(LU_TEST_FUTURE_STEP_PLUGIN), kStart);
    try {
        instance.reconcile_begin("lu", kStart);
        BOOST_FAIL("a step of stepVersion 3 was accepted");
    } catch (const PluginCallError &e) {
        const std::string what = e.what();
        BOOST_TEST(what.find("stepVersion 3, this host reads 1 to 2 only") != std::string::npos, what);
        BOOST_TEST(what.find("future_step") != std::string::npos, what);  // names the plugin file
    }
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(admission_by_result_code)

BOOST_AUTO_TEST_CASE(a_rejection_is_the_plugins_document) {
    const PluginInstance instance(LiveUpdatePlugin::load(LU_LIVEUPDATE_PLUGIN), kStart);
    const json::object rejected = instance.validate("{\"kind\":");
    BOOST_TEST(rejected.at("accepted").as_bool() == false);
    BOOST_TEST(std::string(rejected.at("message").as_string()).find("malformed JSON") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_failed_call_is_not_stored_and_says_why) {
    const PluginInstance instance(LiveUpdatePlugin::load(LU_TEST_FUTURE_STEP_PLUGIN), kStart);
    const json::object result = instance.validate("{}");
    BOOST_TEST(result.at("accepted").as_bool() == false);
    BOOST_TEST(result.at("message").as_string() == "the engine is being torn down");
}

BOOST_AUTO_TEST_CASE(invalid_argument_without_a_document_breaks_the_contract) {
    const PluginInstance instance(LiveUpdatePlugin::load(LU_TEST_FUTURE_STEP_PLUGIN), kStart);
    try {
        instance.upsert("{}");
        BOOST_FAIL("a rejection without a document was taken");
    } catch (const PluginCallError &e) {
        const std::string what = e.what();
        BOOST_TEST(what.find("invalid argument without an admission document: not a document") != std::string::npos,
                   what);
    }
}

BOOST_AUTO_TEST_SUITE_END()
