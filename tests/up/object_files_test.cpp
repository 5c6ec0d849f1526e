#include <boost/test/unit_test.hpp>

#include "host/up/local_container_spec.hpp"
#include "host/up/object_files.hpp"

namespace json = boost::json;
using namespace liveupdate::host::up;

BOOST_AUTO_TEST_CASE(relative_paths_resolve_against_the_declaring_folder) {
    const FileLoad load = parse_object_file("/repo/samples/x/objs.json", R"({"kind": "List", "items": [
        {"kind": "FileWatch", "metadata": {"name": "fw"},
         "spec": {"watchedPaths": ["src", "/abs"], "ignores": [{"basePath": "../y", "patterns": ["*.o"]}]}},
        {"kind": "LiveUpdate", "metadata": {"name": "lu"}, "spec": {"basePath": "."}},
        {"kind": "LocalContainer", "metadata": {"name": "c"}, "spec": {"root": "box", "workingDir": "/app"}}]})");
    BOOST_TEST_REQUIRE(load.errors.empty());
    BOOST_TEST_REQUIRE(load.objects.size() == 3u);
    const json::object &fw = load.objects[0].object.at("spec").as_object();
    BOOST_TEST(fw.at("watchedPaths").as_array()[0].as_string() == "/repo/samples/x/src");
    BOOST_TEST(fw.at("watchedPaths").as_array()[1].as_string() == "/abs");
    BOOST_TEST(fw.at("ignores").as_array()[0].at("basePath").as_string() == "/repo/samples/y");
    BOOST_TEST(load.objects[1].object.at("spec").at("basePath").as_string() == "/repo/samples/x");
    BOOST_TEST(load.objects[2].object.at("spec").at("root").as_string() == "/repo/samples/x/box");
    BOOST_TEST(load.objects[2].object.at("spec").at("workingDir").as_string() == "/app");
}

BOOST_AUTO_TEST_CASE(a_single_object_file_and_bad_items) {
    FileLoad one = parse_object_file("/d/a.json", R"({"kind": "ConfigMap", "metadata": {"name": "q"}})");
    BOOST_TEST(one.objects.size() == 1u);
    BOOST_TEST(one.objects[0].kind == "ConfigMap");

    FileLoad bad = parse_object_file("/d/b.json", R"({"kind": "List", "items": [{"kind": "X"}, 3,
        {"kind": "ImageMap", "metadata": {"name": "im"}}]})");
    BOOST_TEST(bad.objects.size() == 1u);
    BOOST_TEST_REQUIRE(bad.errors.size() == 2u);
    BOOST_TEST(bad.errors[0].find("/d/b.json: items[0]") == 0u, bad.errors[0]);

    FileLoad broken = parse_object_file("/d/c.json", "{not json");
    BOOST_TEST(broken.objects.empty());
    BOOST_TEST(broken.errors.size() == 1u);
    BOOST_TEST(broken.errors[0] == "/d/c.json:1:2: invalid JSON: syntax error", broken.errors[0]);
    BOOST_TEST(!broken.incomplete);

    // Line and column of the file, never the parser's source location.
    FileLoad cut = parse_object_file("/d/e.json", "{\"kind\": \"List\",\n \"items\": [");
    BOOST_TEST(cut.errors.at(0) == "/d/e.json:2:12: invalid JSON: items[0]: incomplete JSON", cut.errors.at(0));
    BOOST_TEST(cut.incomplete);
    FileLoad extra = parse_object_file("/d/f.json", "{}\n\n  x");
    BOOST_TEST(extra.errors.at(0) == "/d/f.json:3:3: invalid JSON: extra data", extra.errors.at(0));
}

// A field of another type is an error naming it in its file, not "no name" or
// an object whose spec goes unread.
BOOST_AUTO_TEST_CASE(a_mistyped_field_is_an_error_naming_file_and_path) {
    const FileLoad name = parse_object_file("/d/g.json", R"({"kind": "LiveUpdate", "metadata": {"name": 5}})");
    BOOST_TEST(name.objects.empty());
    BOOST_TEST_REQUIRE(name.errors.size() == 1u);
    BOOST_TEST(name.errors[0] == "/d/g.json: metadata.name: expected string", name.errors[0]);
    const FileLoad spec =
        parse_object_file("/d/h.json", R"({"kind": "FileWatch", "metadata": {"name": "fw"}, "spec": "x"})");
    BOOST_TEST(spec.objects.empty());
    BOOST_TEST_REQUIRE(spec.errors.size() == 1u);
    BOOST_TEST(spec.errors[0] == "/d/h.json: spec: expected object", spec.errors[0]);
}

// Boost.JSON kept the last of a key given twice; 1e99999 read as infinity and
// invalid UTF-8 passed a YAML file, and the engine then refused the object as
// "malformed JSON: syntax error" with no field and no line.
BOOST_AUTO_TEST_CASE(duplicate_keys_bad_utf8_and_huge_numbers_are_errors_at_their_place) {
    const auto error_of = [](const std::string &file, const std::string &text) {
        const FileLoad load = parse_object_file(file, text);
        BOOST_TEST(load.objects.empty());
        return load.errors.size() == 1u ? load.errors[0] : "errors: " + std::to_string(load.errors.size());
    };
    BOOST_TEST(error_of("/d/a.json",
                        "{\"kind\": \"LiveUpdate\", \"metadata\": {\"name\": \"web\"},\n"
                        " \"spec\": {\"syncs\": [{\"localPath\": \"a\",\n"
                        "   \"localPath\": \"b\"}]}}") ==
               "/d/a.json:3:4: invalid JSON: spec.syncs[0]: duplicate key \"localPath\" (first at line 2)");
    BOOST_TEST(error_of("/d/b.json", "{\"kind\": \"LiveUpdate\",\n \"spec\": {\"n\": 1e99999}}") ==
               "/d/b.json:2:16: invalid JSON: spec.n: number out of range");
    BOOST_TEST(error_of("/d/c.json", "{\"kind\": \"LiveUpdate\",\n \"spec\": {\"p\": \"a\xff\"}}") ==
               "/d/c.json:2:18: invalid JSON: spec.p: invalid UTF-8");
    BOOST_TEST(error_of("/d/d.yaml", "kind: LiveUpdate\nmetadata: {name: web}\nspec:\n  p: \"a\xff\"\n") ==
               "/d/d.yaml:4:6: malformed YAML: spec.p: invalid UTF-8");
    BOOST_TEST(error_of("/d/e.yaml", "kind: LiveUpdate\nmetadata: {name: web}\nkind: FileWatch\n") ==
               "/d/e.yaml:3:1: malformed YAML: duplicate key \"kind\" (first at line 1)");
}

// yaml-cpp 0.7 spins for ever on these 3 bytes: the read is given up at its
// deadline and the error names the file.
BOOST_AUTO_TEST_CASE(a_yaml_file_the_parser_never_finishes_is_an_error_naming_it) {
    const FileLoad load = parse_object_file("/d/spin.yaml", "&\",");
    BOOST_TEST(load.objects.empty());
    BOOST_TEST_REQUIRE(load.errors.size() == 1u);
    BOOST_TEST(load.errors[0] == "/d/spin.yaml: YAML parser did not finish within 5 s", load.errors[0]);
}

BOOST_AUTO_TEST_CASE(local_container_spec_fields) {
    const LocalProcessSpec spec = parse_local_container_spec(json::parse(R"({"spec": {"root": "/r",
        "command": ["busybox", "httpd"], "workingDir": "/app/", "env": ["A=1", "B=x=y"]}})")
                                                                 .as_object());
    BOOST_TEST(spec.root == "/r");
    BOOST_TEST(spec.command.size() == 2u);
    BOOST_TEST(spec.working_dir == "/app");
    BOOST_TEST_REQUIRE(spec.env.size() == 2u);
    BOOST_TEST(spec.env[1].second == "x=y");
    BOOST_TEST(host_path_in(spec, "/app") == "/r/app");
    BOOST_TEST(host_path_in(spec, "/") == "/r");

    auto rejects = [](const char *text, const std::string &field) {
        try {
            parse_local_container_spec(json::parse(text).as_object());
        } catch (const std::invalid_argument &e) {
            return std::string(e.what()).find(field) == 0;
        }
        return false;
    };
    BOOST_TEST(rejects(R"({"spec": {}})", "spec.root"));
    BOOST_TEST(rejects(R"({"spec": {"root": "rel"}})", "spec.root"));
    BOOST_TEST(rejects(R"({"spec": {"root": "/r", "command": "sh"}})", "spec.command"));
    BOOST_TEST(rejects(R"({"spec": {"root": "/r", "workingDir": "app"}})", "spec.workingDir"));
    BOOST_TEST(rejects(R"({"spec": {"root": "/r", "env": ["NOEQUALS"]}})", "spec.env[0]"));
}
