#include <boost/test/unit_test.hpp>

#include <vector>

#include "plugin/core/path_time_index.hpp"

using namespace liveupdate;

namespace {
std::vector<std::string> after(const PathTimeIndex &idx, std::int64_t mark) {
    std::vector<std::string> out;
    idx.for_each_after(common::MicroTime(mark), [&](const std::string &p, common::MicroTime) { out.push_back(p); });
    return out;
}
}  // namespace

BOOST_AUTO_TEST_SUITE(path_time_index)

BOOST_AUTO_TEST_CASE(keeps_the_newest_time_per_path) {
    PathTimeIndex idx;
    idx.record("/a", common::MicroTime(5));
    idx.record("/a", common::MicroTime(3));
    idx.record("/b", common::MicroTime(4));
    BOOST_TEST(idx.size() == 2u);
    BOOST_TEST(after(idx, 4) == std::vector<std::string>{"/a"});
    idx.record("/b", common::MicroTime(9));
    BOOST_TEST((after(idx, 4) == std::vector<std::string>{"/a", "/b"}));
}

BOOST_AUTO_TEST_CASE(after_is_strict) {
    PathTimeIndex idx;
    idx.record("/a", common::MicroTime(5));
    BOOST_TEST(after(idx, 5).empty());
    BOOST_TEST(after(idx, 4).size() == 1u);
}

BOOST_AUTO_TEST_CASE(forget_before_drops_only_older_paths) {
    PathTimeIndex idx;
    idx.record("/old", common::MicroTime(1));
    idx.record("/edge", common::MicroTime(5));
    idx.record("/new", common::MicroTime(8));
    idx.forget_before(common::MicroTime(5));
    BOOST_TEST(idx.size() == 2u);
    BOOST_TEST((after(idx, 0) == std::vector<std::string>{"/edge", "/new"}));
    idx.record("/old", common::MicroTime(2));
    BOOST_TEST(idx.size() == 3u);
}

BOOST_AUTO_TEST_SUITE_END()
