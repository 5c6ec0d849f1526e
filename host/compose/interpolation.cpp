#include "host/compose/interpolation.hpp"

namespace liveupdate::host::compose {
namespace {

bool name_start(char c) { return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool name_char(char c) { return name_start(c) || (c >= '0' && c <= '9'); }

class Interpolator {
public:
    Interpolator(std::string_view text, const VariableLookup &lookup) : text_(text), lookup_(lookup) {}

    // Reads up to the end, or up to the "}" closing an enclosing ${...} when nested.
    std::string run(Interpolated &out, bool nested) {
        std::string result;
        while (pos_ < text_.size()) {
            const char c = text_[pos_];
            if (nested && c == '}') return result;
            if (c != '$') {
                result += c;
                ++pos_;
                continue;
            }
            ++pos_;
            if (pos_ >= text_.size())
                throw InterpolationError(invalid("a lone \"$\" at the end (write $$ for a dollar)"));
            const char next = text_[pos_];
            if (next == '$') {
                result += '$';
                ++pos_;
            } else if (next == '{') {
                ++pos_;
                result += braced(out);
            } else if (name_start(next)) {
                const std::string name = read_name();
                result += value_or_blank(name, out);
            } else {
                throw InterpolationError(
                    invalid(std::string("\"$") + next + "\" is not a variable (write $$ for a dollar)"));
            }
        }
        if (nested) throw InterpolationError(invalid("\"${\" is not closed"));
        return result;
    }

private:
    std::string invalid(const std::string &why) const {
        return "invalid interpolation in \"" + std::string(text_) + "\": " + why;
    }

    std::string read_name() {
        const std::size_t start = pos_;
        while (pos_ < text_.size() && name_char(text_[pos_])) ++pos_;
        return std::string(text_.substr(start, pos_ - start));
    }

    std::string value_or_blank(const std::string &name, Interpolated &out) {
        if (auto v = lookup_(name)) return *v;
        out.unset.push_back(name);
        return {};
    }

    // After "${": NAME then "}" or an operator and its nested text, then "}".
    std::string braced(Interpolated &out) {
        if (pos_ >= text_.size() || !name_start(text_[pos_]))
            throw InterpolationError(invalid("\"${\" must be followed by a variable name"));
        const std::string name = read_name();
        if (pos_ >= text_.size()) throw InterpolationError(invalid("\"${" + name + "\" is not closed"));
        if (text_[pos_] == '}') {
            ++pos_;
            return value_or_blank(name, out);
        }
        bool colon = false;
        if (text_[pos_] == ':') {
            colon = true;
            ++pos_;
        }
        if (pos_ >= text_.size()) throw InterpolationError(invalid("\"${" + name + "\" is not closed"));
        const char op = text_[pos_];
        if (op != '-' && op != '?' && op != '+')
            throw InterpolationError(invalid(std::string("unknown operator \"") + (colon ? ":" : "") + op +
                                             "\" after " + name + " (use :-, -, :?, ?, :+ or +)"));
        ++pos_;
        Interpolated inner;
        std::string argument = run(inner, true);
        ++pos_;  // the closing "}"
        const std::optional<std::string> value = lookup_(name);
        const bool set = value.has_value() && (!colon || !value->empty());
        const auto take_inner = [&] {
            out.unset.insert(out.unset.end(), inner.unset.begin(), inner.unset.end());
            return argument;
        };
        switch (op) {
        case '-': return set ? *value : take_inner();
        case '+': return set ? take_inner() : std::string();
        default:
            if (set) return *value;
            throw InterpolationError("required variable " + name + " is missing a value" +
                                     (argument.empty() ? std::string() : ": " + argument));
        }
    }

    std::string_view text_;
    const VariableLookup &lookup_;
    std::size_t pos_ = 0;
};

}  // namespace

Interpolated interpolate(std::string_view text, const VariableLookup &lookup) {
    Interpolated out;
    if (text.find('$') == std::string_view::npos) {
        out.text = std::string(text);
        return out;
    }
    Interpolator in(text, lookup);
    out.text = in.run(out, false);
    return out;
}

}  // namespace liveupdate::host::compose
