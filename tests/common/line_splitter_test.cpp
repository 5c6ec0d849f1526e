// common/line_splitter: line ends, the cap and its cut marker, chunks cut
// anywhere.
#define BOOST_TEST_MODULE line_splitter
#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

#include "common/line_splitter.hpp"

using liveupdate::common::LineSplitter;

namespace {

std::vector<std::string> split(const std::vector<std::string> &chunks, std::size_t cap = LineSplitter::kMaxLineBytes) {
    std::vector<std::string> lines;
    LineSplitter splitter([&](std::string_view line) { lines.emplace_back(line); }, cap);
    for (const auto &c : chunks) splitter.feed(c);
    splitter.flush();
    return lines;
}

using Lines = std::vector<std::string>;

}  // namespace

BOOST_AUTO_TEST_CASE(lines_end_at_newline_or_carriage_return) {
    BOOST_TEST((split({"a\nb", "c\n", "\n"}) == Lines{"a", "bc", ""}));
    BOOST_TEST((split({"10%\r20%\r", "done\r\n", "next"}) == Lines{"10%", "20%", "done", "next"}));
    BOOST_TEST((split({"a\r\n\r\nb\n"}) == Lines{"a", "", "b"}));
}

BOOST_AUTO_TEST_CASE(a_crlf_split_between_chunks_ends_one_line) {
    BOOST_TEST((split({"a\r", "\nb\r", "", "\n", "c"}) == Lines{"a", "b", "c"}));
}

BOOST_AUTO_TEST_CASE(chunks_of_one_byte_give_the_same_lines) {
    const std::string text = "first\r\nsecond\rthird\n\nlast";
    std::vector<std::string> bytes;
    for (const char c : text) bytes.emplace_back(1, c);
    BOOST_TEST(split(bytes) == split({text}));
    BOOST_TEST((split(bytes) == Lines{"first", "second", "third", "", "last"}));
}

BOOST_AUTO_TEST_CASE(a_line_at_the_cap_is_whole_one_byte_more_is_cut) {
    BOOST_TEST((split({"abcd\n", "efgh"}, 4) == Lines{"abcd", "efgh"}));
    BOOST_TEST((split({"abcd", "\r\n"}, 4) == Lines{"abcd"}));
    BOOST_TEST((split({"abcde\nok\n"}, 4) == Lines{"abcd" + LineSplitter::cut_marker(4), "ok"}));
    BOOST_TEST((split({"abcd", "e", "fgh\nok"}, 4) == Lines{"abcd" + LineSplitter::cut_marker(4), "ok"}));
    BOOST_TEST(LineSplitter::cut_marker(16384) == " ... [line cut at 16384 bytes]");
}

BOOST_AUTO_TEST_CASE(a_line_that_never_ends_is_cut_once_and_the_rest_dropped) {
    const std::string endless(LineSplitter::kMaxLineBytes * 3 + 5, 'x');
    const auto lines = split({endless.substr(0, 1000), endless.substr(1000), "\nafter\n"});
    BOOST_TEST_REQUIRE(lines.size() == 2u);
    BOOST_TEST(lines[0] ==
               std::string(LineSplitter::kMaxLineBytes, 'x') + LineSplitter::cut_marker(LineSplitter::kMaxLineBytes));
    BOOST_TEST(lines[1] == "after");
    // Cut and never ended: nothing more at the flush.
    BOOST_TEST(split({endless}).size() == 1u);
}

BOOST_AUTO_TEST_CASE(a_cut_does_not_split_a_utf8_character) {
    // "é" is two bytes: the cap falls between them.
    BOOST_TEST((split({"abc\xC3\xA9z\n"}, 4) == Lines{"abc" + LineSplitter::cut_marker(4)}));
    BOOST_TEST((split({"ab\xC3\xA9z\n"}, 4) == Lines{"ab\xC3\xA9" + LineSplitter::cut_marker(4)}));
}
