#include "host/compose/command_words.hpp"

#include <stdexcept>

namespace liveupdate::host::compose {

std::vector<std::string> split_command_words(std::string_view command) {
    std::vector<std::string> words;
    std::string word;
    bool in_word = false;
    char quote = 0;
    for (std::size_t i = 0; i < command.size(); ++i) {
        const char c = command[i];
        if (quote == '\'') {
            if (c == '\'')
                quote = 0;
            else
                word += c;
            continue;
        }
        if (c == '\\' && quote != '\'') {
            if (i + 1 >= command.size())
                throw std::invalid_argument("a trailing backslash in \"" + std::string(command) + "\"");
            const char next = command[++i];
            // Inside double quotes a backslash escapes only what the shell would.
            if (quote == '"' && next != '"' && next != '\\' && next != '$' && next != '`') word += '\\';
            word += next;
            in_word = true;
            continue;
        }
        if (quote == '"') {
            if (c == '"')
                quote = 0;
            else
                word += c;
            continue;
        }
        if (c == '\'' || c == '"') {
            quote = c;
            in_word = true;
        } else if (c == ' ' || c == '\t' || c == '\n') {
            if (in_word) words.push_back(std::move(word));
            word.clear();
            in_word = false;
        } else {
            word += c;
            in_word = true;
        }
    }
    if (quote != 0)
        throw std::invalid_argument(std::string("an unclosed ") + quote + " in \"" + std::string(command) + "\"");
    if (in_word) words.push_back(std::move(word));
    return words;
}

}  // namespace liveupdate::host::compose
