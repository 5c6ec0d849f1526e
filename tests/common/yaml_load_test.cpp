// common/yaml_load: the alias count before yaml-cpp's loader, and its
// errors through the YAML-to-JSON conversion that object files use.
#define BOOST_TEST_MODULE yaml_load
#include <boost/test/unit_test.hpp>

#include <atomic>
#include <chrono>
#include <string>

#include "common/bounded_child.hpp"
#include "common/yaml_json.hpp"
#include "common/yaml_load.hpp"

using namespace liveupdate::common;

namespace {

// "Billion laughs": `levels` anchors, each a list of `width` aliases of the one before.
std::string alias_bomb(int levels, int width, const std::string &leaf = "lol") {
    std::string text = "a0: &a0 [";
    for (int i = 0; i < width; ++i) text += (i ? ", \"" : "\"") + leaf + "\"";
    text += "]\n";
    for (int level = 1; level < levels; ++level) {
        text += "a" + std::to_string(level) + ": &a" + std::to_string(level) + " [";
        for (int i = 0; i < width; ++i) text += (i ? ", *a" : "*a") + std::to_string(level - 1);
        text += "]\n";
    }
    return text;
}

std::string refusal(const std::string &text) {
    try {
        load_all_yaml(text);
    } catch (const YamlAliasError &e) {
        return "line " + std::to_string(e.mark.line + 1) + ": " + e.msg;
    }
    return "loaded";
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_billion_laughs_is_refused_at_the_alias_that_crosses_the_limit) {
    const std::string bomb = alias_bomb(10, 9);
    BOOST_TEST(bomb.size() < 1024u);
    BOOST_TEST(refusal(bomb) == "line 7: too many aliases (the document expands to more than 1000000 nodes)");
}

BOOST_AUTO_TEST_CASE(a_small_file_that_expands_a_hundredfold_is_refused) {
    // About 2^17 nodes from 61 written: under the absolute limit, not under the ratio.
    const std::string r = refusal(alias_bomb(15, 2));
    BOOST_TEST(r.find("too many aliases (61 nodes expand to 131069,") != std::string::npos, r);
    BOOST_TEST(r.find("more than 100 times as many") != std::string::npos, r);
    // Up to 10,000 nodes, whatever the ratio: about 2^13.
    BOOST_TEST(refusal(alias_bomb(11, 2)) == "loaded");
}

BOOST_AUTO_TEST_CASE(ordinary_anchors_load) {
    const std::string text =
        "x-common: &common {image: app, environment: {A: '1'}}\n"
        "services:\n  web: *common\n  api: *common\n  worker: *common\n";
    const YAML::Node root = load_yaml(text);
    BOOST_TEST(root["services"]["api"]["image"].as<std::string>() == "app");
}

BOOST_AUTO_TEST_CASE(an_alias_inside_its_own_anchor_is_refused) {
    BOOST_TEST(refusal("a: &x [1, *x]\n") ==
               "line 1: an alias inside the node it refers to (a walk of it would never end)");
}

BOOST_AUTO_TEST_CASE(every_document_of_a_stream_is_counted) {
    const std::string r = refusal("kind: A\n---\n" + alias_bomb(10, 9));
    BOOST_TEST(r.find("too many aliases") != std::string::npos, r);
    // Anchors belong to their document: a second one starts from nothing.
    BOOST_TEST(refusal(alias_bomb(11, 2) + "---\n" + alias_bomb(11, 2)) == "loaded");
}

BOOST_AUTO_TEST_CASE(yaml_documents_report_it_with_line_and_column) {
    try {
        yaml_documents(alias_bomb(10, 9));
        BOOST_FAIL("an alias bomb was converted");
    } catch (const YamlError &e) {
        BOOST_TEST(std::string(e.what()).find("line 7, column ") == 0, e.what());
        BOOST_TEST(std::string(e.what()).find("too many aliases") != std::string::npos, e.what());
    }
}

namespace {

// What load_all_yaml refuses text for, with the line of its mark; "loaded" else.
std::string parse_refusal(const std::string &text) {
    try {
        load_all_yaml(text);
    } catch (const YAML::ParserException &e) {
        return "line " + std::to_string(e.mark.line + 1) + ", column " + std::to_string(e.mark.column + 1) + ": " +
               e.msg;
    }
    return "loaded";
}

std::string conversion_refusal(const std::string &text) {
    try {
        yaml_documents(text);
    } catch (const YamlError &e) {
        return e.what();
    }
    return "converted";
}

}  // namespace

// YAML wants a map's keys unique; yaml-cpp keeps both, and a reader takes
// one or the other without a word. Refused as Compose refuses it.
BOOST_AUTO_TEST_CASE(a_key_twice_in_one_map_is_refused_naming_key_and_lines) {
    BOOST_TEST(parse_refusal("kind: A\nspec:\n  syncs:\n    - {localPath: a, containerPath: /b, localPath: c}\n") ==
               "line 4, column 41: spec.syncs[0]: duplicate key \"localPath\" (first at line 4)");
    BOOST_TEST(parse_refusal("a: 1\nb:\n  c: 2\na: 3\n") == "line 4, column 1: duplicate key \"a\" (first at line 1)");
    // Every document and every map has keys of its own; a value may repeat a key.
    BOOST_TEST(parse_refusal("a: 1\nb: {a: 1, b: a}\nc: [{a: 1}, {a: 2}]\n---\na: 2\n") == "loaded");
    BOOST_TEST(parse_refusal("x: &m {a: 1}\ny: *m\nz: *m\n") == "loaded");
    BOOST_TEST(conversion_refusal("a: 1\nb:\n  c: [1, {d: 1, d: 2}]\n") ==
               "line 3, column 17: b.c[1]: duplicate key \"d\" (first at line 3)");
}

// JSON carries neither: both were written into objects that the engine then
// refused as "malformed JSON: syntax error", naming no field and no line.
BOOST_AUTO_TEST_CASE(invalid_utf8_and_numbers_out_of_range_are_refused_at_their_place) {
    BOOST_TEST(conversion_refusal("kind: A\nspec:\n  path: \"a\xff\"\n") ==
               "line 3, column 9: spec.path: invalid UTF-8");
    BOOST_TEST(conversion_refusal("kind: A\nspec:\n  \xfe: 1\n") == "line 3, column 3: spec: invalid UTF-8");
    BOOST_TEST(conversion_refusal("kind: A\nspec:\n  n: [1, 1e99999]\n") ==
               "line 3, column 10: spec.n[1]: number out of range: 1e99999");
    BOOST_TEST(conversion_refusal("n: '1e99999'\nm: 1e-99999\nu: \"\u00e9\"\n") == "converted");
}

namespace {

std::atomic<bool> g_stop{false};

}  // namespace

BOOST_AUTO_TEST_CASE(a_read_is_abandoned_once_the_process_stops) {
    std::string big = "items:\n";
    for (int i = 0; i < 20000; ++i) big += "  - item" + std::to_string(i) + "\n";
    abandon_yaml_reads_when([]() noexcept { return g_stop.load(); });
    BOOST_TEST(load_yaml(big)["items"].size() == 20000u);
    g_stop = true;
    BOOST_CHECK_THROW(load_yaml(big), YamlReadAbandoned);
    BOOST_CHECK_THROW(load_all_yaml(big), YamlReadAbandoned);
    BOOST_TEST(yaml_reads_abandoned());
    abandon_yaml_reads_when(nullptr);
    BOOST_TEST(!yaml_reads_abandoned());
    BOOST_TEST(load_yaml(big)["items"].size() == 20000u);
}

// fuzz_compose_file: yaml-cpp 0.7 looped for ever on this compose file (a
// directive line inside a document); it is refused instead.
BOOST_AUTO_TEST_CASE(a_directive_inside_a_document_is_refused_not_parsed) {
    const std::string text =
        "x-common: &servicescommon\n  build: .\x8b"
        "api\nicvreses:\n api:\n%   <<: *common\n"
        "    develop:\n      wJJJJJJJes:\n api:\n%   <<: *common\n    [{iorv}],\n";
    BOOST_CHECK_THROW(load_yaml(text), YAML::ParserException);
    BOOST_CHECK_THROW(load_all_yaml("a: 1\n%YAML 1.2\n"), YAML::ParserException);
    BOOST_TEST(load_yaml("%YAML 1.2\n---\na: 1\n")["a"].as<int>() == 1);
    BOOST_TEST(load_all_yaml("a: 1\n...\n%YAML 1.2\n---\nb: 2\n").size() == 2u);
}

namespace {

const std::string kSpins = "&\",";  // yaml-cpp 0.7 spins for ever on these 3 bytes

std::string limit_refusal(const std::string &text, const YamlReadLimits &limits) {
    try {
        load_all_yaml(text, limits);
    } catch (const YamlParserLimitError &e) {
        BOOST_TEST(e.mark.is_null());
        return e.msg;
    }
    return "loaded";
}

std::string many_items(int n) {
    std::string text = "items:\n";
    for (int i = 0; i < n; ++i) text += "  - item" + std::to_string(i) + "\n";
    return text;
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_parse_that_never_ends_is_stopped_at_its_deadline) {
    BOOST_TEST(limit_refusal(kSpins, {std::chrono::milliseconds(300), std::size_t{1} << 30}) ==
               "YAML parser did not finish within 0.3 s");
    BOOST_CHECK_THROW(load_yaml(kSpins, {std::chrono::milliseconds(300), std::size_t{1} << 30}), YamlParserLimitError);
    // The same limits let an ordinary file through.
    BOOST_TEST(load_yaml("a: [1, 2]\n", {std::chrono::milliseconds(300), std::size_t{1} << 30})["a"].size() == 2u);
}

BOOST_AUTO_TEST_CASE(a_parse_that_needs_too_much_memory_is_stopped,
                     *boost::unit_test::precondition([](boost::unit_test::test_unit_id) {
                         return child_memory_limit_applies();
                     })) {
    const std::string text = many_items(200000);
    BOOST_TEST(limit_refusal(text, {std::chrono::minutes(1), std::size_t{1} << 20}) ==
               "YAML parser needed more than 1 MiB of memory");
    BOOST_TEST(load_yaml(text, {std::chrono::minutes(1), std::size_t{1} << 30})["items"].size() == 200000u);
}

namespace {

std::atomic<int> g_stop_checks{0};

}  // namespace

BOOST_AUTO_TEST_CASE(a_parse_that_never_ends_is_given_up_once_the_process_stops) {
    // The child's own check (its copy of the counter) says "go on"; the
    // parent's second check says "stop" while the child spins.
    abandon_yaml_reads_when([]() noexcept { return ++g_stop_checks >= 2; });
    BOOST_CHECK_THROW(load_all_yaml(kSpins, {std::chrono::minutes(10), std::size_t{1} << 30}), YamlReadAbandoned);
    abandon_yaml_reads_when(nullptr);
    BOOST_TEST(g_stop_checks.load() == 2);
}
