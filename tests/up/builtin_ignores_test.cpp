#include <boost/test/unit_test.hpp>

#include <string_view>

#include "common/builtin_ignores.hpp"

namespace {

// The watchers' question: is this absolute path one of the built-in ignores?
bool is_builtin_ignored(std::string_view absolute_path) {
    return liveupdate::common::builtin_ignores().matches(absolute_path);
}

}  // namespace

BOOST_AUTO_TEST_CASE(git_metadata_is_ignored) {
    BOOST_TEST(is_builtin_ignored("/src/.git"));
    BOOST_TEST(is_builtin_ignored("/src/.git/index.lock"));
    BOOST_TEST(!is_builtin_ignored("/src/.gitignore"));
    BOOST_TEST(!is_builtin_ignored("/src/my.git/x"));
}

BOOST_AUTO_TEST_CASE(editor_temporaries_are_ignored) {
    for (const char *p : {"/s/.index.html.swp", "/s/4913", "/s/.#main.c", "/s/#main.c#", "/s/main.c~",
                          "/s/a.txt___jb_tmp___", "/s/.a.kate-swp"})
        BOOST_TEST(is_builtin_ignored(p), p);
}

BOOST_AUTO_TEST_CASE(ordinary_files_are_kept) {
    for (const char *p : {"/s/index.html", "/s/main.c", "/s/swp", "/s/a4913", "/s/.env"})
        BOOST_TEST(!is_builtin_ignored(p), p);
}
