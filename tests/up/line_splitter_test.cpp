#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

#include "host/up/admission_warnings.hpp"
#include "host/up/line_splitter.hpp"

using namespace liveupdate::host::up;

namespace {

std::vector<std::string> split(const std::vector<std::string> &chunks) {
    std::vector<std::string> lines;
    LineSplitter splitter([&](std::string_view line) { lines.emplace_back(line); });
    for (const auto &c : chunks) splitter.feed(c);
    splitter.flush();
    return lines;
}

}  // namespace

BOOST_AUTO_TEST_CASE(lines_end_at_newline_carriage_return_or_the_cap) {
    BOOST_TEST((split({"a\nb", "c\n", "\n"}) == std::vector<std::string>{"a", "bc", ""}));
    BOOST_TEST((split({"10%\r20%\r", "done\r\n", "next"}) == std::vector<std::string>{"10%", "20%", "done", "next"}));
    // A line that never ends comes out in pieces of the cap, every byte kept.
    const std::string endless(LineSplitter::kMaxLineBytes * 2 + 5, 'x');
    const auto pieces = split({endless.substr(0, 1000), endless.substr(1000)});
    BOOST_TEST_REQUIRE(pieces.size() == 3u);
    BOOST_TEST(pieces[0].size() == LineSplitter::kMaxLineBytes);
    BOOST_TEST(pieces[1].size() == LineSplitter::kMaxLineBytes);
    BOOST_TEST(pieces[2] == "xxxxx");
}

BOOST_AUTO_TEST_CASE(admission_warns_of_a_sync_outside_the_base_and_a_root_container) {
    const auto lu = boost::json::parse(R"({"kind": "LiveUpdate", "metadata": {"name": "lu"}, "spec": {
        "basePath": "/repo/app", "syncs": [{"localPath": "src", "containerPath": "/app"},
        {"localPath": "/repo/app/lib", "containerPath": "/lib"}, {"localPath": "../shared", "containerPath": "/s"},
        {"localPath": "/etc", "containerPath": "/e"}]}})").as_object();
    const auto warnings = admission_warnings(lu);
    BOOST_TEST_REQUIRE(warnings.size() == 2u);
    BOOST_TEST(warnings[0].find("spec.syncs[2].localPath /repo/shared is outside spec.basePath /repo/app") == 0u,
               warnings[0]);
    BOOST_TEST(warnings[1].find("spec.syncs[3].localPath /etc is outside") == 0u, warnings[1]);

    const auto root = boost::json::parse(R"({"kind": "LocalContainer", "metadata": {"name": "c"},
        "spec": {"root": "/"}})").as_object();
    BOOST_TEST(admission_warnings(root).size() == 1u);
    const auto boxed = boost::json::parse(R"({"kind": "LocalContainer", "metadata": {"name": "c"},
        "spec": {"root": "/srv/box"}})").as_object();
    BOOST_TEST(admission_warnings(boxed).empty());
}
