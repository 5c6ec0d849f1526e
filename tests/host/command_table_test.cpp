#include <boost/test/unit_test.hpp>

#include <cctype>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "host/cli/commands.hpp"

using namespace liveupdate::host::cli;

namespace {

// What `lu-host NAME --help` prints.
std::string help_of(const Command &command) {
    std::string name(command.name), flag("--help");
    std::vector<char *> argv{name.data(), flag.data(), nullptr};
    std::ostringstream out;
    std::streambuf *saved = std::cout.rdbuf(out.rdbuf());
    const int code = command.run(2, argv.data());
    std::cout.rdbuf(saved);
    BOOST_TEST(code == kExitOk, name);
    return out.str();
}

// Whether `text` has `option` as a word of its own: "-n" is not in "--namespace".
bool names(const std::string &text, const std::string &option) {
    const auto part_of_option = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '-'; };
    for (std::size_t at = text.find(option); at != std::string::npos; at = text.find(option, at + 1)) {
        const std::size_t end = at + option.size();
        if ((at == 0 || !part_of_option(text[at - 1])) && (end == text.size() || !part_of_option(text[end])))
            return true;
    }
    return false;
}

}  // namespace

// The option table a command parses with is also what `lu-host completion`
// offers: each option in it is one its --help documents.
BOOST_AUTO_TEST_CASE(every_option_of_a_command_table_is_in_its_help) {
    for (const Command &command : commands()) {
        const std::string help = help_of(command);
        for (const auto *options : {&command.options.values, &command.options.flags})
            for (const std::string &option : *options) {
                if (option == "--help" || option == "-h") continue;
                BOOST_TEST(names(help, option), "lu-host " << command.name << " --help does not name " << option);
            }
    }
}
