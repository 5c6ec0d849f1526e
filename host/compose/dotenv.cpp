#include "host/compose/dotenv.hpp"

#include <vector>

namespace liveupdate::host::compose {
namespace {

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
    return s;
}

bool valid_key(std::string_view key) {
    if (key.empty()) return false;
    for (const char c : key)
        if (!(c == '_' || c == '.' || c == '-' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
              (c >= '0' && c <= '9')))
            return false;
    return !(key.front() >= '0' && key.front() <= '9');
}

}  // namespace

std::map<std::string, std::string> parse_dotenv(std::string_view text, const VariableLookup &environment) {
    std::map<std::string, std::string> values;
    const VariableLookup lookup = [&](std::string_view name) -> std::optional<std::string> {
        if (auto v = environment(name)) return v;
        if (auto found = values.find(std::string(name)); found != values.end()) return found->second;
        return std::nullopt;
    };
    int line_number = 0;
    std::size_t pos = 0;
    while (pos < text.size()) {
        ++line_number;
        std::size_t end = text.find('\n', pos);
        if (end == std::string_view::npos) end = text.size();
        std::string_view line = trim(text.substr(pos, end - pos));
        const int this_line = line_number;
        pos = end + 1;
        if (line.empty() || line.front() == '#') continue;
        if (line.starts_with("export ")) line = trim(line.substr(7));
        const std::size_t eq = line.find('=');
        if (eq == std::string_view::npos) {
            const std::string key(line);
            if (!valid_key(key)) throw DotenvError(this_line, "expected KEY=VALUE, got \"" + key + "\"");
            // A bare KEY takes its value from the environment, when it has one.
            if (auto v = environment(key)) values[key] = *v;
            continue;
        }
        const std::string key(trim(line.substr(0, eq)));
        if (!valid_key(key)) throw DotenvError(this_line, "\"" + key + "\" is not a variable name");
        std::string_view raw = trim(line.substr(eq + 1));
        std::string value;
        try {
            if (!raw.empty() && (raw.front() == '\'' || raw.front() == '"')) {
                const char quote = raw.front();
                // A quoted value may span lines: read on to the closing quote.
                std::string body;
                std::size_t i = 1;
                std::string_view source = text.substr(static_cast<std::size_t>(raw.data() - text.data()));
                bool closed = false;
                for (; i < source.size(); ++i) {
                    const char c = source[i];
                    if (c == '\n') ++line_number;
                    if (c == quote) {
                        closed = true;
                        break;
                    }
                    if (quote == '"' && c == '\\' && i + 1 < source.size()) {
                        const char e = source[++i];
                        body += e == 'n' ? '\n' : e == 't' ? '\t' : e == 'r' ? '\r' : e;
                        continue;
                    }
                    body += c;
                }
                if (!closed) throw DotenvError(this_line, "the value of " + key + " has no closing " + quote);
                const std::size_t after = static_cast<std::size_t>(source.data() - text.data()) + i + 1;
                const std::size_t line_end = text.find('\n', after);
                pos = line_end == std::string_view::npos ? text.size() : line_end + 1;
                value = quote == '"' ? interpolate(body, lookup).text : body;
            } else {
                if (const std::size_t hash = raw.find(" #"); hash != std::string_view::npos)
                    raw = trim(raw.substr(0, hash));
                value = interpolate(raw, lookup).text;
            }
        } catch (const InterpolationError &e) {
            throw DotenvError(this_line, key + ": " + e.what());
        }
        values[key] = std::move(value);
    }
    return values;
}

}  // namespace liveupdate::host::compose
