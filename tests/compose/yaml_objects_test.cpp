// Tilt objects written in YAML: yaml_documents' typing and object files that
// hold one or more YAML documents (as `tilt get -o yaml` prints them).
#define BOOST_TEST_MODULE yaml_objects
#include <boost/test/unit_test.hpp>

#include "common/yaml_json.hpp"
#include "host/up/object_files.hpp"

namespace json = boost::json;
using namespace liveupdate;

BOOST_AUTO_TEST_CASE(plain_scalars_are_typed_and_quoted_ones_are_strings) {
    const auto docs = common::yaml_documents("a: 1\nb: \"1\"\nc: true\nd: 'true'\ne: ~\nf: 1.5\ng: text\nh: [x, 2]\n");
    BOOST_TEST_REQUIRE(docs.size() == 1u);
    BOOST_TEST(json::serialize(docs[0]) ==
               R"({"a":1,"b":"1","c":true,"d":"true","e":null,"f":1.5E0,"g":"text","h":["x",2]})");
}

BOOST_AUTO_TEST_CASE(several_documents_and_errors_with_their_place) {
    BOOST_TEST(common::yaml_documents("---\na: 1\n---\n---\nb: 2\n").size() == 2u);
    BOOST_CHECK_EXCEPTION(common::yaml_documents("a: 1\nb: [x\n"), common::YamlError,
                          [](const common::YamlError &e) { return e.line() >= 2; });
}

BOOST_AUTO_TEST_CASE(an_object_file_in_yaml_holds_several_objects) {
    const auto load =
        host::up::parse_object_file("/p/objects.yaml",
                                    "apiVersion: tilt.dev/v1alpha1\n"
                                    "kind: FileWatch\n"
                                    "metadata:\n  name: src\n"
                                    "spec:\n  watchedPaths: [src]\n"
                                    "---\n"
                                    "apiVersion: v1\nkind: List\nitems:\n"
                                    "- apiVersion: tilt.dev/v1alpha1\n  kind: LiveUpdate\n  metadata: {name: web}\n"
                                    "  spec: {basePath: ., syncs: [{localPath: src, containerPath: /app}]}\n");
    BOOST_TEST_REQUIRE(load.errors.empty());
    BOOST_TEST_REQUIRE(load.objects.size() == 2u);
    BOOST_TEST(load.objects[0].kind == "FileWatch");
    BOOST_TEST(load.objects[0].object.at("spec").at("watchedPaths").at(0).as_string() == "/p/src");
    BOOST_TEST(load.objects[1].name == "web");
    BOOST_TEST(load.objects[1].object.at("spec").at("basePath").as_string() == "/p");
}

BOOST_AUTO_TEST_CASE(malformed_yaml_object_file_names_line_and_column) {
    const auto load = host::up::parse_object_file("/p/objects.yml", "kind: FileWatch\nmetadata: {name: x\n");
    BOOST_TEST_REQUIRE(load.errors.size() == 1u);
    BOOST_TEST(load.errors[0].find("/p/objects.yml:") == 0u);
    BOOST_TEST(load.errors[0].find("malformed YAML") != std::string::npos);
}
