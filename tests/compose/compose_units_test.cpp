// host/compose: interpolation, .env, command words, project names, file
// discovery, reading and merging compose files, and develop.watch → Tilt
// objects, including the Compose Develop Specification's examples.
#define BOOST_TEST_MODULE compose_units
#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <fstream>
#include <map>

#include "host/compose/command_words.hpp"
#include "host/compose/compose_project.hpp"
#include "host/compose/compose_reader.hpp"
#include "host/compose/dotenv.hpp"
#include "host/compose/interpolation.hpp"
#include "host/compose/project_files.hpp"
#include "host/compose/project_name.hpp"
#include "host/compose/watch_objects.hpp"
#include "tests/support/temp_dir.hpp"

namespace fs = std::filesystem;
namespace json = boost::json;
using namespace liveupdate::host::compose;

namespace {

VariableLookup vars(std::map<std::string, std::string> values) {
    return [values = std::move(values)](std::string_view name) -> std::optional<std::string> {
        auto found = values.find(std::string(name));
        if (found == values.end()) return std::nullopt;
        return found->second;
    };
}

std::string interp(std::string_view text, std::map<std::string, std::string> values = {}) {
    return interpolate(text, vars(std::move(values))).text;
}

const json::object *find_object(const std::vector<json::object> &objects, std::string_view kind,
                                std::string_view name) {
    for (const auto &o : objects)
        if (o.at("kind").as_string() == kind && o.at("metadata").at("name").as_string() == name) return &o;
    return nullptr;
}

using liveupdate::test::TempDir;

Project project_of(const std::string &yaml, const std::string &dir = "/src/shop") {
    FileRead read = read_compose_file(dir + "/compose.yaml", yaml, vars({}));
    BOOST_TEST_REQUIRE(read.errors.empty(), (read.errors.empty() ? "" : read.errors.front().text()));
    Project p;
    p.name = "shop";
    p.directory = dir;
    p.files = {dir + "/compose.yaml"};
    p.services = read.compose->services;
    return p;
}

const DockerignoreReader kNoDockerignore = [](const std::string &) { return std::nullopt; };

}  // namespace

BOOST_AUTO_TEST_SUITE(interpolation)

BOOST_AUTO_TEST_CASE(forms_of_variables) {
    const std::map<std::string, std::string> v{{"A", "alpha"}, {"EMPTY", ""}};
    BOOST_TEST(interp("x-${A}-$A", v) == "x-alpha-alpha");
    BOOST_TEST(interp("${MISSING:-dflt}", v) == "dflt");
    BOOST_TEST(interp("${EMPTY:-dflt}", v) == "dflt");
    BOOST_TEST(interp("${EMPTY-dflt}", v) == "");
    BOOST_TEST(interp("${MISSING-dflt}", v) == "dflt");
    BOOST_TEST(interp("${A:+alt}${MISSING:+alt}", v) == "alt");
    BOOST_TEST(interp("${A:?never}", v) == "alpha");
    BOOST_TEST(interp("cost $$5 and $${A}", v) == "cost $5 and ${A}");
    BOOST_TEST(interp("${MISSING:-${A}/sub}", v) == "alpha/sub");
    BOOST_TEST(interp("plain } text", v) == "plain } text");
}

BOOST_AUTO_TEST_CASE(unset_variables_are_blank_and_reported) {
    const Interpolated r = interpolate("a${NOPE}b$ALSO_NOT", vars({}));
    BOOST_TEST(r.text == "ab");
    BOOST_TEST(r.unset == (std::vector<std::string>{"NOPE", "ALSO_NOT"}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(required_and_malformed_are_errors) {
    BOOST_CHECK_EXCEPTION(interp("${KEY:?set KEY in .env}"), InterpolationError, [](const InterpolationError &e) {
        return std::string(e.what()) == "required variable KEY is missing a value: set KEY in .env";
    });
    BOOST_CHECK_THROW(interp("${EMPTY:?}", {{"EMPTY", ""}}), InterpolationError);
    BOOST_TEST(interp("${EMPTY?}", {{"EMPTY", ""}}) == "");
    BOOST_CHECK_THROW(interp("${A"), InterpolationError);
    BOOST_CHECK_THROW(interp("${}"), InterpolationError);
    BOOST_CHECK_THROW(interp("${A/x}"), InterpolationError);
    BOOST_CHECK_THROW(interp("price: $5"), InterpolationError);
    BOOST_CHECK_THROW(interp("end$"), InterpolationError);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(dotenv)

BOOST_AUTO_TEST_CASE(lines_quotes_comments_and_references) {
    const auto values = parse_dotenv(
        "# comment\n"
        "export PORT=8080\n"
        "NAME = shop  # trailing\n"
        "LITERAL='${PORT} stays'\n"
        "QUOTED=\"line1\\nline2 ${PORT}\"\n"
        "URL=http://host:${PORT}/x\n"
        "FROM_ENV=${HOME_DIR}\n"
        "\n",
        vars({{"HOME_DIR", "/home/u"}}));
    BOOST_TEST(values.at("PORT") == "8080");
    BOOST_TEST(values.at("NAME") == "shop");
    BOOST_TEST(values.at("LITERAL") == "${PORT} stays");
    BOOST_TEST(values.at("QUOTED") == "line1\nline2 8080");
    BOOST_TEST(values.at("URL") == "http://host:8080/x");
    BOOST_TEST(values.at("FROM_ENV") == "/home/u");
}

BOOST_AUTO_TEST_CASE(bad_lines_name_their_line) {
    BOOST_CHECK_EXCEPTION(parse_dotenv("A=1\nnot a line\n", vars({})), DotenvError,
                          [](const DotenvError &e) { return e.line() == 2; });
    BOOST_CHECK_EXCEPTION(parse_dotenv("A=1\nB=\"open\n", vars({})), DotenvError,
                          [](const DotenvError &e) { return e.line() == 2; });
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_CASE(command_strings_split_like_a_shell) {
    BOOST_TEST(split_command_words("app reload") == (std::vector<std::string>{"app", "reload"}),
               boost::test_tools::per_element());
    BOOST_TEST(split_command_words(R"(sh -c 'echo "hi there"' a\ b "x\"y")") ==
                   (std::vector<std::string>{"sh", "-c", "echo \"hi there\"", "a b", "x\"y"}),
               boost::test_tools::per_element());
    BOOST_CHECK_THROW(split_command_words("echo 'open"), std::invalid_argument);
}

BOOST_AUTO_TEST_SUITE(project_names)

BOOST_AUTO_TEST_CASE(normalised_as_compose_does) {
    BOOST_TEST(normalize_project_name("My Shop.v2") == "myshopv2");
    BOOST_TEST(normalize_project_name("__-web_app-1") == "web_app-1");
    BOOST_TEST(normalize_project_name("ÄBC") == "bc");
}

BOOST_AUTO_TEST_CASE(option_then_environment_then_name_then_folder) {
    BOOST_TEST(choose_project_name("Opt", "env", "top", "/x/Folder") == "opt");
    BOOST_TEST(choose_project_name(std::nullopt, "Env", "top", "/x/Folder") == "env");
    BOOST_TEST(choose_project_name(std::nullopt, std::nullopt, "Top", "/x/Folder") == "top");
    BOOST_TEST(choose_project_name(std::nullopt, "", std::nullopt, "/x/My.Folder") == "myfolder");
    BOOST_CHECK_THROW(choose_project_name("---", std::nullopt, std::nullopt, "/x/y"), std::invalid_argument);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_CASE(compose_files_are_found_as_compose_finds_them) {
    TempDir t;
    BOOST_TEST(compose_files_of(t.path().string()).empty());
    t.write("docker-compose.yml", "services: {}\n");
    BOOST_TEST(
        compose_files_of(t.path().string()) == (std::vector<std::string>{(t.path() / "docker-compose.yml").string()}),
        boost::test_tools::per_element());
    t.write("compose.yaml", "services: {}\n");
    t.write("compose.override.yaml", "services: {}\n");
    BOOST_TEST(compose_files_of(t.path().string()) ==
                   (std::vector<std::string>{(t.path() / "compose.yaml").string(),
                                             (t.path() / "compose.override.yaml").string()}),
               boost::test_tools::per_element());
    BOOST_TEST(compose_files_of((t.path() / "docker-compose.yml").string()).size() == 1u);
    t.write("objects.yaml", "kind: FileWatch\n");
    BOOST_TEST(compose_files_of((t.path() / "objects.yaml").string()).empty());
}

BOOST_AUTO_TEST_SUITE(reading)

BOOST_AUTO_TEST_CASE(malformed_yaml_has_line_and_column) {
    const FileRead r = read_compose_file("/p/compose.yaml", "services:\n  web:\n    image: [a, b\n", vars({}));
    BOOST_TEST_REQUIRE(r.errors.size() == 1u);
    BOOST_TEST(!r.compose.has_value());
    BOOST_TEST(r.errors[0].where.file == "/p/compose.yaml");
    BOOST_TEST(r.errors[0].where.line >= 3);
    BOOST_TEST(r.errors[0].text().find("malformed YAML") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(an_alias_bomb_is_refused_naming_the_file) {
    // 1 KiB that a walk expands to 9^9 scalars, each a variable without a value.
    std::string bomb = "x-a0: &a0 [";
    for (int i = 0; i < 9; ++i) bomb += i == 0 ? "'${NOPE}'" : ", '${NOPE}'";
    bomb += "]\n";
    for (int level = 1; level < 9; ++level) {
        const std::string prev = "*a" + std::to_string(level - 1);
        bomb += "x-a" + std::to_string(level) + ": &a" + std::to_string(level) + " [" + prev;
        for (int i = 1; i < 9; ++i) bomb += ", " + prev;
        bomb += "]\n";
    }
    bomb += "services:\n  web: {image: app}\n";
    const FileRead read = read_compose_file("/src/shop/compose.yaml", bomb, vars({}));
    BOOST_TEST_REQUIRE(read.errors.size() == 1u);
    BOOST_TEST(read.errors[0].text().find("/src/shop/compose.yaml:7:") == 0, read.errors[0].text());
    BOOST_TEST(read.errors[0].text().find(": too many aliases (the document expands to more than 1000000 nodes)") !=
                   std::string::npos,
               read.errors[0].text());
    BOOST_TEST(read.warnings.empty());
    BOOST_TEST(!read.compose.has_value());
}

// yaml-cpp 0.7 spins for ever on these 3 bytes: the read is given up at its
// deadline and the error names the file.
BOOST_AUTO_TEST_CASE(a_file_the_yaml_parser_never_finishes_is_an_error_naming_it) {
    const FileRead read = read_compose_file("/src/shop/compose.yaml", "&\",", vars({}));
    BOOST_TEST_REQUIRE(read.errors.size() == 1u);
    BOOST_TEST(read.errors[0].text() == "/src/shop/compose.yaml: YAML parser did not finish within 5 s",
               read.errors[0].text());
    BOOST_TEST(!read.compose.has_value());
}

BOOST_AUTO_TEST_CASE(a_required_variable_anywhere_is_an_error_at_its_place) {
    const FileRead r =
        read_compose_file("/p/compose.yaml", "services:\n  web:\n    image: app:${TAG:?TAG must be set}\n", vars({}));
    BOOST_TEST_REQUIRE(r.errors.size() == 1u);
    BOOST_TEST(r.errors[0].text() == "/p/compose.yaml:3:12: required variable TAG is missing a value: TAG must be set");
}

BOOST_AUTO_TEST_CASE(watch_rules_are_read_with_interpolation) {
    const FileRead r = read_compose_file("/p/compose.yaml",
                                         "name: ${NAME:-shop}\n"
                                         "services:\n"
                                         "  web:\n"
                                         "    build: {context: ./web}\n"
                                         "    develop:\n"
                                         "      watch:\n"
                                         "        - path: ./src\n"
                                         "          target: ${ROOT}/app\n"
                                         "          action: sync+exec\n"
                                         "          ignore: [\"*.tmp\"]\n"
                                         "          initial_sync: true\n"
                                         "          exec:\n"
                                         "            command: [\"sh\", \"-c\", \"echo $$PWD\"]\n"
                                         "            user: \"1000\"\n"
                                         "            working_dir: /app\n"
                                         "            environment: {MODE: dev}\n"
                                         "            privileged: true\n",
                                         vars({{"ROOT", "/srv"}}));
    BOOST_TEST_REQUIRE(r.errors.empty());
    BOOST_TEST(*r.compose->name == "shop");
    const Service &web = r.compose->services.at("web");
    BOOST_TEST(*web.build_context == "./web");
    BOOST_TEST_REQUIRE(web.watch->size() == 1u);
    const WatchRule &rule = web.watch->front();
    BOOST_TEST(rule.path == "./src");
    BOOST_TEST(*rule.target == "/srv/app");
    BOOST_TEST(rule.action == "sync+exec");
    BOOST_TEST(rule.initial_sync);
    BOOST_TEST(rule.ignore.front() == "*.tmp");
    BOOST_TEST(rule.exec->command.back() == "echo $PWD");
    BOOST_TEST(rule.exec->user == "1000");
    BOOST_TEST(rule.exec->working_dir == "/app");
    BOOST_TEST(rule.exec->environment.at("MODE") == "dev");
    BOOST_TEST(rule.exec->privileged);
    BOOST_TEST(rule.action_where.line == 9);
    BOOST_TEST(rule.action_where.column == 19);
}

BOOST_AUTO_TEST_CASE(unknown_rule_keys_are_errors) {
    const FileRead r = read_compose_file("/p/compose.yaml",
                                         "services:\n  web:\n    develop:\n      watch:\n        - path: .\n          "
                                         "action: sync\n          taget: /app\n",
                                         vars({}));
    BOOST_TEST_REQUIRE(r.errors.size() == 1u);
    BOOST_TEST(r.errors[0].where.line == 7);
    BOOST_TEST(r.errors[0].message.find("unknown key \"taget\"") != std::string::npos);
}

// docker compose refuses such a file; yaml-cpp keeps both keys and the
// reader took the last: a sync rule became a rebuild rule without a word.
BOOST_AUTO_TEST_CASE(a_key_given_twice_is_an_error_naming_line_and_key) {
    const FileRead r = read_compose_file("/p/compose.yaml",
                                         "services:\n  web:\n    develop:\n      watch:\n"
                                         "        - path: ./src\n          action: sync\n          target: /app\n"
                                         "          action: rebuild\n",
                                         vars({}));
    BOOST_TEST_REQUIRE(r.errors.size() == 1u);
    BOOST_TEST(r.errors[0].text() ==
                   "/p/compose.yaml:8:11: services.web.develop.watch[0]: duplicate key \"action\" "
                   "(first at line 6)",
               r.errors[0].text());
    BOOST_TEST(!r.compose.has_value());
    // The same key in two maps is no duplicate.
    BOOST_TEST(read_compose_file("/p/compose.yaml",
                                 "services:\n  web: {image: a}\n  api: {image: a}\nx-a: {image: b}\n", vars({}))
                   .errors.empty());
}

// The objects' JSON carries only UTF-8: the engine refused such a rule's
// objects as "malformed JSON", naming no file and no line.
BOOST_AUTO_TEST_CASE(text_that_is_not_utf8_is_an_error_at_its_place) {
    const FileRead r = read_compose_file("/p/compose.yaml",
                                         "services:\n  web:\n    develop:\n      watch:\n"
                                         "        - {path: ./src, action: sync, target: \"/app\xff\"}\n"
                                         "  \"w\xfe\": {image: a}\n",
                                         vars({}));
    BOOST_TEST_REQUIRE(r.errors.size() == 2u);
    BOOST_TEST(r.errors[0].text() == "/p/compose.yaml:5:47: invalid UTF-8", r.errors[0].text());
    BOOST_TEST(r.errors[1].text() == "/p/compose.yaml:6:3: invalid UTF-8", r.errors[1].text());
    BOOST_TEST(!r.compose.has_value());
}

// The Compose spec allows one pattern as a string; docker/compose's own
// end-to-end test of watch writes `include: A.*`.
BOOST_AUTO_TEST_CASE(include_is_a_string_or_a_list) {
    const FileRead r = read_compose_file("/p/compose.yaml",
                                         "services:\n  a:\n    develop:\n      watch:\n"
                                         "        - {path: ., include: A.*, target: /data/, action: sync}\n"
                                         "        - {path: ., include: [\"*.txt\", sub], target: /d, action: sync}\n",
                                         vars({}));
    BOOST_TEST_REQUIRE(r.errors.empty(), (r.errors.empty() ? "" : r.errors.front().text()));
    const auto &rules = *r.compose->services.at("a").watch;
    BOOST_TEST((rules.at(0).include == std::vector<std::string>{"A.*"}));
    BOOST_TEST((rules.at(1).include == std::vector<std::string>{"*.txt", "sub"}));
    const FileRead bad = read_compose_file(
        "/p/compose.yaml", "services:\n  a:\n    develop:\n      watch:\n        - {path: ., include: {x: 1}}\n",
        vars({}));
    BOOST_TEST_REQUIRE(!bad.errors.empty());
    BOOST_TEST(bad.errors[0].message == "services.a.develop.watch[0].include must be a string or a list of strings",
               bad.errors[0].text());
}

// Compose's earlier spelling, as docker/compose's watch fixture wrote it
// (through an anchor): read as develop, with a deprecation warning.
BOOST_AUTO_TEST_CASE(a_service_level_x_develop_is_read_as_develop_with_a_warning) {
    const FileRead r = read_compose_file("/p/compose.yaml",
                                         "x-dev: &x-dev\n  watch:\n"
                                         "    - {action: sync, path: ./data, target: /app/data, ignore: ['*.foo']}\n"
                                         "services:\n  alpine:\n    image: alpine\n    x-develop: *x-dev\n"
                                         "  both:\n    x-develop: *x-dev\n    develop:\n      watch:\n"
                                         "        - {action: restart, path: ./conf}\n",
                                         vars({}));
    BOOST_TEST_REQUIRE(r.errors.empty(), (r.errors.empty() ? "" : r.errors.front().text()));
    const auto &alpine = r.compose->services.at("alpine");
    BOOST_TEST_REQUIRE(alpine.watch.has_value());
    BOOST_TEST(alpine.watch->at(0).target.value_or("") == "/app/data");
    BOOST_TEST(alpine.watch->at(0).ignore.at(0) == "*.foo");
    BOOST_TEST_REQUIRE(r.compose->services.at("both").watch.has_value());
    BOOST_TEST(r.compose->services.at("both").watch->at(0).action == "restart");
    BOOST_TEST_REQUIRE(r.warnings.size() == 2u);
    BOOST_TEST(r.warnings[0].text() == "/p/compose.yaml:7:5: services.alpine.x-develop is deprecated: write develop",
               r.warnings[0].text());
    BOOST_TEST(r.warnings[1].text().find("services.both.x-develop is deprecated and ignored: develop is given") !=
                   std::string::npos,
               r.warnings[1].text());
}

BOOST_AUTO_TEST_CASE(later_files_override_and_replace_watch_lists) {
    const auto first = read_compose_file("/p/compose.yaml",
                                         "name: one\nservices:\n  web:\n    build: ./web\n    develop:\n      watch:\n"
                                         "        - {path: ./a, action: sync, target: /a}\n"
                                         "        - {path: ./b, action: sync, target: /b}\n"
                                         "  db:\n    develop:\n      watch:\n        - {path: ./db, action: restart}\n",
                                         vars({}));
    const auto second = read_compose_file("/p/override.yaml",
                                          "name: two\nservices:\n  web:\n    develop:\n      watch:\n"
                                          "        - {path: ./c, action: restart}\n"
                                          "  cache:\n    image: redis\n",
                                          vars({}));
    BOOST_TEST_REQUIRE((first.errors.empty() && second.errors.empty()));
    const ComposeFile merged = merge_compose_files({*first.compose, *second.compose});
    BOOST_TEST(*merged.name == "two");
    const Service &web = merged.services.at("web");
    BOOST_TEST(*web.build_context == "./web");
    BOOST_TEST_REQUIRE(web.watch->size() == 1u);
    BOOST_TEST(web.watch->front().path == "./c");
    BOOST_TEST(merged.services.at("db").watch->size() == 1u);
    BOOST_TEST(merged.services.count("cache") == 1u);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(mapping)

// The Compose Develop Specification's illustrative example.
BOOST_AUTO_TEST_CASE(specification_frontend_and_backend) {
    const Project p = project_of(
        "services:\n"
        "  frontend:\n"
        "    image: example/webapp\n"
        "    build: ./webapp\n"
        "    develop:\n"
        "      watch:\n"
        "        # sync static content\n"
        "        - path: ./webapp/html\n"
        "          action: sync\n"
        "          target: /var/www\n"
        "          ignore:\n"
        "            - node_modules/\n"
        "  backend:\n"
        "    image: example/backend\n"
        "    build: ./backend\n"
        "    develop:\n"
        "      watch:\n"
        "        # rebuild image and recreate service\n"
        "        - path: ./backend/src\n"
        "          action: rebuild\n");
    const WatchObjects w = watch_objects(p, kNoDockerignore);
    BOOST_TEST_REQUIRE(w.errors.empty());
    BOOST_TEST(w.objects.size() == 5u);
    const auto *fw = find_object(w.objects, "FileWatch", "frontend-watch-1");
    BOOST_TEST_REQUIRE(fw != nullptr);
    BOOST_TEST(fw->at("spec").at("watchedPaths").as_array().at(0).as_string() == "/src/shop/webapp/html");
    const auto &ignore = fw->at("spec").at("ignores").as_array().at(0).as_object();
    BOOST_TEST(ignore.at("basePath").as_string() == "/src/shop/webapp/html");
    BOOST_TEST(ignore.at("patterns").as_array().at(0).as_string() == "node_modules/");
    const auto *lu = find_object(w.objects, "LiveUpdate", "frontend");
    BOOST_TEST_REQUIRE(lu != nullptr);
    const auto &spec = lu->at("spec").as_object();
    BOOST_TEST(spec.at("basePath").as_string() == "/src/shop");
    BOOST_TEST(spec.at("selector").at("dockerCompose").at("service").as_string() == "frontend");
    BOOST_TEST(json::serialize(spec.at("syncs")) ==
               R"([{"localPath":"/src/shop/webapp/html","containerPath":"/var/www"}])");
    BOOST_TEST(!spec.contains("initialSync"));
    const auto *dcs = find_object(w.objects, "DockerComposeService", "backend");
    BOOST_TEST_REQUIRE(dcs != nullptr);
    BOOST_TEST(dcs->at("spec").at("project").at("name").as_string() == "shop");
    // A rebuild rule is watched for the host's rebuilder, not synced: with
    // nothing else to do, backend has no LiveUpdate.
    BOOST_TEST(find_object(w.objects, "LiveUpdate", "backend") == nullptr);
    BOOST_TEST(find_object(w.objects, "FileWatch", "backend-watch-1") != nullptr);
    BOOST_TEST(w.rebuild_watches.at("backend-watch-1") == "backend");
}

// The specification's sync+exec example: "app reload" after a sync of ./etc/config.
BOOST_AUTO_TEST_CASE(specification_sync_exec) {
    const Project p = project_of(
        "services:\n  frontend:\n    image: x\n    develop:\n      watch:\n"
        "        - path: ./etc/config\n          action: sync+exec\n          target: /etc/config/\n"
        "          exec:\n            command: app reload\n");
    const WatchObjects w = watch_objects(p, kNoDockerignore);
    BOOST_TEST_REQUIRE(w.errors.empty());
    const auto &spec = find_object(w.objects, "LiveUpdate", "frontend")->at("spec").as_object();
    BOOST_TEST(json::serialize(spec.at("execs")) ==
               R"([{"args":["app","reload"],"triggerPaths":["/src/shop/etc/config"]}])");
}

BOOST_AUTO_TEST_CASE(exec_options_reach_the_exec) {
    const Project p = project_of(
        "services:\n  web:\n    develop:\n      watch:\n"
        "        - path: ./x\n          action: sync+exec\n          target: /x\n"
        "          exec:\n            command: [touch, done]\n            user: nobody\n"
        "            working_dir: /tmp\n            environment: [MODE=dev]\n"
        "            privileged: true\n");
    const WatchObjects w = watch_objects(p, kNoDockerignore);
    BOOST_TEST_REQUIRE(w.errors.empty());
    const auto &exec = find_object(w.objects, "LiveUpdate", "web")->at("spec").at("execs").at(0).as_object();
    BOOST_TEST(json::serialize(exec) == R"({"args":["touch","done"],"triggerPaths":["/src/shop/x"],"user":"nobody",)"
                                        R"("workingDir":"/tmp","env":["MODE=dev"],"privileged":true})");
}

BOOST_AUTO_TEST_CASE(restart_include_initial_sync_and_dockerignore) {
    const Project p = project_of(
        "services:\n  web:\n    build: .\n    develop:\n      watch:\n"
        "        - {path: ./src, action: sync+restart, target: /app, include: [\"*.js\"], initial_sync: true}\n"
        "        - {path: ./conf, action: restart}\n");
    const WatchObjects w = watch_objects(p, [](const std::string &dir) {
        BOOST_TEST(dir == "/src/shop");
        return std::optional<std::vector<std::string>>({"*.log"});
    });
    BOOST_TEST_REQUIRE(w.errors.empty());
    const auto &spec = find_object(w.objects, "LiveUpdate", "web")->at("spec").as_object();
    BOOST_TEST(json::serialize(spec.at("restartPaths")) == R"(["/src/shop/src","/src/shop/conf"])");
    BOOST_TEST(json::serialize(spec.at("syncs")) == R"([{"localPath":"/src/shop/src","containerPath":"/app"}])");
    BOOST_TEST(spec.contains("initialSync"));
    BOOST_TEST(json::serialize(spec.at("sources")) == R"([{"fileWatch":"web-watch-1"},{"fileWatch":"web-watch-2"}])");
    const auto &ignores = find_object(w.objects, "FileWatch", "web-watch-1")->at("spec").at("ignores").as_array();
    BOOST_TEST_REQUIRE(ignores.size() == 3u);
    BOOST_TEST(json::serialize(ignores[1].at("patterns")) == R"(["**","!*.js"])");
    BOOST_TEST(json::serialize(ignores[2]) == R"({"basePath":"/src/shop","patterns":["*.log"]})");
}

// Compose leaves x- keys alone: `docker compose watch` still reads the file.
BOOST_AUTO_TEST_CASE(x_sync_back_reaches_the_sync_and_needs_a_syncing_rule) {
    const Project p = project_of(
        "services:\n  web:\n    develop:\n      watch:\n"
        "        - {path: ., action: sync, target: /app, x-sync-back: [package-lock.json, \"db/**\"]}\n"
        "  api:\n    develop:\n      watch:\n"
        "        - {path: ./conf, action: restart, x-sync-back: [x]}\n");
    const WatchObjects w = watch_objects(p, kNoDockerignore);
    BOOST_TEST_REQUIRE(w.errors.size() == 1u);
    BOOST_TEST(w.errors[0].text() ==
               "/src/shop/compose.yaml:9:56: services.api.develop.watch[0].x-sync-back: files come back only "
               "through a rule that syncs (sync, sync+restart, sync+exec), not restart");
    const auto &spec = find_object(w.objects, "LiveUpdate", "web")->at("spec").as_object();
    BOOST_TEST(json::serialize(spec.at("syncs")) ==
               R"([{"localPath":"/src/shop","containerPath":"/app","syncBack":["package-lock.json","db/**"]}])");
    const FileRead typed = read_compose_file("/p/compose.yaml",
                                             "services:\n  web:\n    develop:\n      watch:\n        - {path: ., "
                                             "action: sync, target: /a, x-sync-back: 3}\n",
                                             vars({}));
    BOOST_TEST_REQUIRE(typed.errors.size() == 1u);
    BOOST_TEST(typed.errors[0].message.find("x-sync-back") != std::string::npos, typed.errors[0].message);
}

BOOST_AUTO_TEST_CASE(bad_rules_are_errors_and_the_other_services_stay) {
    const Project p = project_of(
        "services:\n"
        "  a:\n    develop:\n      watch:\n        - {path: ./x, action: syncc, target: /x}\n"
        "  b:\n    develop:\n      watch:\n        - {path: ./x, action: sync}\n"
        "  c:\n    develop:\n      watch:\n        - {path: ../elsewhere, action: restart}\n"
        "  d:\n    develop:\n      watch:\n        - {path: ./ok, action: sync, target: /ok}\n");
    const WatchObjects w = watch_objects(p, kNoDockerignore);
    BOOST_TEST_REQUIRE(w.errors.size() == 3u);
    BOOST_TEST(w.errors[0].text() ==
               "/src/shop/compose.yaml:5:31: services.a.develop.watch[0]: unknown action \"syncc\" "
               "(valid: rebuild, restart, sync, sync+exec, sync+restart)");
    BOOST_TEST(w.errors[1].text() ==
               "/src/shop/compose.yaml:9:11: services.b.develop.watch[0]: action sync needs a "
               "target (the path in the container)");
    BOOST_TEST(
        w.errors[2].text().find("/src/shop/compose.yaml:13:18: services.c.develop.watch[0].path \"../elsewhere\" "
                                "is outside the project folder") == 0);
    BOOST_TEST(find_object(w.objects, "LiveUpdate", "d") != nullptr);
    BOOST_TEST(find_object(w.objects, "LiveUpdate", "a") == nullptr);
    BOOST_TEST(w.objects.size() == 3u);
}

BOOST_AUTO_TEST_CASE(a_path_through_a_symlink_to_outside_the_project_is_an_error) {
    TempDir t;
    fs::create_directories(t.path() / "shop/inside");
    fs::create_directories(t.path() / "elsewhere");
    fs::create_directory_symlink(t.path() / "elsewhere", t.path() / "shop/www");
    fs::create_directory_symlink("inside", t.path() / "shop/here");
    const std::string dir = (t.path() / "shop").string();
    const Project p = project_of(
        "services:\n"
        "  web:\n    develop:\n      watch:\n        - {path: ./www, action: sync, target: /www}\n"
        "  ok:\n    develop:\n      watch:\n        - {path: ./here, action: sync, target: /here}\n",
        dir);
    const WatchObjects w = watch_objects(p, kNoDockerignore);
    BOOST_TEST_REQUIRE(w.errors.size() == 1u);
    BOOST_TEST(w.errors[0].text() == dir +
                                         "/compose.yaml:5:18: services.web.develop.watch[0].path \"./www\" is outside "
                                         "the project folder " +
                                         dir + " (it leads to " + (t.path() / "elsewhere").string() + ")");
    BOOST_TEST(find_object(w.objects, "LiveUpdate", "web") == nullptr);
    BOOST_TEST(find_object(w.objects, "LiveUpdate", "ok") != nullptr);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_CASE(a_project_loads_with_its_env_file_and_overrides) {
    TempDir t;
    t.write(".env", "TARGET=/app\nCOMPOSE_PROJECT_NAME=From.Env\n");
    t.write("compose.yaml",
            "services:\n  web:\n    develop:\n      watch:\n        - {path: ./src, action: sync, target: "
            "\"${TARGET}\"}\n");
    t.write("extra.yaml",
            "services:\n  web:\n    develop:\n      watch:\n        - {path: ./other, action: sync, target: "
            "\"${TARGET}/o\"}\n");
    ProjectLoad load = load_compose_project(
        {{(t.path() / "compose.yaml").string(), (t.path() / "extra.yaml").string()}, std::nullopt}, vars({}));
    BOOST_TEST_REQUIRE(load.errors.empty(), (load.errors.empty() ? "" : load.errors.front()));
    BOOST_TEST(load.name == "fromenv");
    BOOST_TEST(load.watched_files.size() == 3u);
    const auto &spec = find_object(load.objects, "LiveUpdate", "web")->at("spec").as_object();
    BOOST_TEST(json::serialize(spec.at("syncs").at(0).at("containerPath")) == R"("/app/o")");
    load = load_compose_project({{(t.path() / "compose.yaml").string()}, "Cli"}, vars({{"TARGET", "/env"}}));
    BOOST_TEST(load.name == "cli");
    BOOST_TEST(
        find_object(load.objects, "LiveUpdate", "web")->at("spec").at("syncs").at(0).at("containerPath").as_string() ==
        "/env");
}
