#include <boost/test/unit_test.hpp>

#include "host/cli/options.hpp"

using namespace liveupdate::host::cli;

BOOST_AUTO_TEST_SUITE(options)

BOOST_AUTO_TEST_CASE(values_flags_and_positionals) {
    const char *argv[] = {"replay", "--plugin", "p.so", "--dump", "a.json", "--plugin=q.so", "--", "--b.json"};
    ParsedArgs args = parse_args(8, const_cast<char **>(argv), {{"--plugin"}, {"--dump"}});
    BOOST_TEST(args.value("--plugin").value() == "q.so");
    BOOST_TEST(args.has("--dump"));
    BOOST_TEST(args.positional == (std::vector<std::string>{"a.json", "--b.json"}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(unknown_options_and_missing_values_are_usage_errors) {
    const char *unknown[] = {"replay", "--nope"};
    BOOST_CHECK_THROW(parse_args(2, const_cast<char **>(unknown), {}), UsageError);
    const char *missing[] = {"replay", "--plugin"};
    BOOST_CHECK_THROW(parse_args(2, const_cast<char **>(missing), {{"--plugin"}, {}}), UsageError);
}

BOOST_AUTO_TEST_SUITE_END()
