#include "common/yaml_load.hpp"

#include <yaml-cpp/eventhandler.h>

#include <algorithm>
#include <atomic>
#include <istream>
#include <limits>
#include <streambuf>
#include <string>
#include <unordered_map>

#include "common/bounded_child.hpp"

namespace liveupdate::common {
namespace {

std::size_t saturating_add(std::size_t a, std::size_t b) {
    return a > std::numeric_limits<std::size_t>::max() - b ? std::numeric_limits<std::size_t>::max() : a + b;
}

// Counts each document's nodes as written and as a walk expands them (an
// alias counts as the node it names), and refuses a map's key given twice (as
// YAML and Compose do; yaml-cpp keeps both), in one pass over the parser's
// events.
class ExpansionCounter : public YAML::EventHandler {
public:
    void OnDocumentStart(const YAML::Mark &) override {
        anchored_.clear();
        written_ = 0;
        expanded_ = 0;
        largest_alias_size_ = 0;
        largest_alias_ = YAML::Mark::null_mark();
    }
    void OnDocumentEnd() override {
        if (expanded_ > kFreeExpandedYamlNodes && expanded_ / kMaxYamlExpansionRatio >= written_)
            throw YamlAliasError(largest_alias_, "too many aliases (" + std::to_string(written_) + " nodes expand to " +
                                                     std::to_string(expanded_) + ", more than " +
                                                     std::to_string(kMaxYamlExpansionRatio) + " times as many)");
    }
    void OnNull(const YAML::Mark &mark, YAML::anchor_t anchor) override {
        child(mark, nullptr);
        leaf(mark, anchor, 1);
    }
    void OnScalar(const YAML::Mark &mark, const std::string &, YAML::anchor_t anchor,
                  const std::string &value) override {
        child(mark, &value);
        leaf(mark, anchor, 1);
    }
    void OnAlias(const YAML::Mark &mark, YAML::anchor_t anchor) override {
        const auto found = anchored_.find(anchor);
        child(mark, nullptr);
        if (found == anchored_.end()) return;  // yaml-cpp reports the unknown anchor itself
        if (found->second == kStillOpen)
            throw YamlAliasError(mark, "an alias inside the node it refers to (a walk of it would never end)");
        if (found->second > largest_alias_size_) {
            largest_alias_size_ = found->second;
            largest_alias_ = mark;
        }
        leaf(mark, YAML::NullAnchor, found->second);
    }
    void OnSequenceStart(const YAML::Mark &mark, const std::string &, YAML::anchor_t anchor,
                         YAML::EmitterStyle::value) override {
        open(mark, anchor, false);
    }
    void OnSequenceEnd() override { close(); }
    void OnMapStart(const YAML::Mark &mark, const std::string &, YAML::anchor_t anchor,
                    YAML::EmitterStyle::value) override {
        open(mark, anchor, true);
    }
    void OnMapEnd() override { close(); }

private:
    static constexpr std::size_t kStillOpen = 0;

    struct Collection {
        YAML::anchor_t anchor;
        std::size_t expanded;
        bool map;
        std::size_t children = 0;                   // of a map, keys and values alike
        std::string key;                            // of a map: the key read last
        std::unordered_map<std::string, int> keys;  // of a map: its scalar keys, with their lines
    };

    // `services.web.develop.watch[0]`: where the open collections are.
    std::string path() const {
        std::string out;
        for (const Collection &c : open_) {
            if (!c.map) {
                out += "[" + std::to_string(c.children == 0 ? 0 : c.children - 1) + "]";
            } else if (!c.key.empty()) {
                if (!out.empty()) out += '.';
                out += c.key;
            }
        }
        return out;
    }

    // Counts one child of the innermost collection; a scalar in a map's key
    // place is a key, refused when the map has it already.
    void child(const YAML::Mark &mark, const std::string *scalar) {
        if (open_.empty()) return;
        Collection &parent = open_.back();
        const bool key_place = parent.map && parent.children % 2 == 0;
        ++parent.children;
        if (!key_place) return;
        parent.key = scalar != nullptr ? *scalar : std::string();
        if (scalar == nullptr) return;
        const auto [first, added] = parent.keys.try_emplace(*scalar, mark.line + 1);
        if (added) return;
        parent.key.clear();  // the path names the map
        const std::string where = path();
        throw YamlDuplicateKeyError(mark, (where.empty() ? "" : where + ": ") + "duplicate key \"" + *scalar +
                                              "\" (first at line " + std::to_string(first->second) + ")");
    }

    void count(const YAML::Mark &mark, std::size_t nodes) {
        ++written_;
        expanded_ = saturating_add(expanded_, nodes);
        if (expanded_ > kMaxExpandedYamlNodes)
            throw YamlAliasError(mark, "too many aliases (the document expands to more than " +
                                           std::to_string(kMaxExpandedYamlNodes) + " nodes)");
    }
    void leaf(const YAML::Mark &mark, YAML::anchor_t anchor, std::size_t nodes) {
        count(mark, nodes);
        if (anchor != YAML::NullAnchor) anchored_[anchor] = nodes;
        if (!open_.empty()) open_.back().expanded = saturating_add(open_.back().expanded, nodes);
    }
    void open(const YAML::Mark &mark, YAML::anchor_t anchor, bool map) {
        child(mark, nullptr);
        count(mark, 1);
        if (anchor != YAML::NullAnchor) anchored_[anchor] = kStillOpen;
        open_.push_back({anchor, 1, map, 0, {}, {}});
    }
    void close() {
        const Collection done = std::move(open_.back());
        open_.pop_back();
        if (done.anchor != YAML::NullAnchor) anchored_[done.anchor] = done.expanded;
        if (!open_.empty()) open_.back().expanded = saturating_add(open_.back().expanded, done.expanded);
    }

    std::unordered_map<YAML::anchor_t, std::size_t> anchored_;  // expanded size; kStillOpen while being read
    std::vector<Collection> open_;
    std::size_t written_ = 0;
    std::size_t expanded_ = 0;
    std::size_t largest_alias_size_ = 0;
    YAML::Mark largest_alias_ = YAML::Mark::null_mark();
};

std::atomic<bool (*)() noexcept> g_stopping{nullptr};

// The text as a stream that ends early once reads are to be given up.
class AbandonableText : public std::streambuf {
public:
    explicit AbandonableText(std::string_view text) : text_(text) {}
    bool abandoned() const { return abandoned_; }

protected:
    int_type underflow() override {
        if (next_ >= text_.size()) return traits_type::eof();
        if (yaml_reads_abandoned()) {
            abandoned_ = true;
            return traits_type::eof();
        }
        const std::size_t n = std::min(kChunk, text_.size() - next_);
        char *begin = const_cast<char *>(text_.data() + next_);  // only read: std::streambuf wants char *
        setg(begin, begin, begin + n);
        next_ += n;
        return traits_type::to_int_type(*begin);
    }

private:
    static constexpr std::size_t kChunk = std::size_t{64} * 1024;
    std::string_view text_;
    std::size_t next_ = 0;
    bool abandoned_ = false;
};

// Runs `read` over the text; a read cut short by a stop is YamlReadAbandoned,
// whatever yaml-cpp made of the truncated text.
template <class Read>
auto read_abandonable(std::string_view text, Read read) {
    AbandonableText buffer(text);
    std::istream in(&buffer);
    const auto abandoned = [] {
        return YamlReadAbandoned(YAML::Mark::null_mark(), "reading abandoned: the process is stopping");
    };
    try {
        auto result = read(in);
        if (buffer.abandoned()) throw abandoned();
        return result;
    } catch (const YamlReadAbandoned &) {
        throw;
    } catch (const YAML::Exception &) {
        if (buffer.abandoned()) throw abandoned();
        throw;
    }
}

// A directive (a line that starts with '%') belongs before a document's
// "---"; yaml-cpp 0.7 can loop for ever on one inside a document (found by
// fuzz_compose_file), so such a line is refused before yaml-cpp reads it.
void check_directives(std::string_view text) {
    bool prologue = true;  // before the first "---", or after a "..."
    int line = 0;
    for (std::size_t start = 0; start < text.size(); ++line) {
        const std::size_t end = std::min(text.find('\n', start), text.size());
        const std::string_view l = text.substr(start, end - start);
        start = end + 1;
        if (l.starts_with("...")) {
            prologue = true;
        } else if (l.starts_with("%")) {
            if (prologue) continue;
            YAML::Mark mark;
            mark.line = line;
            throw YAML::ParserException(mark, "a directive (a line starting with '%') inside a document");
        } else if (!l.empty() && !l.starts_with("#")) {
            prologue = false;
        }
    }
}

void check_aliases(std::string_view text) {
    read_abandonable(text, [](std::istream &in) {
        YAML::Parser parser(in);
        ExpansionCounter counter;
        while (parser.HandleNextDocument(counter)) {
        }
        return true;
    });
}

std::string seconds_text(std::chrono::milliseconds ms) {
    const auto whole = ms.count() / 1000;
    const auto tenths = ms.count() % 1000 / 100;
    return std::to_string(whole) + (tenths != 0 ? "." + std::to_string(tenths) : "") + " s";
}

// Runs `load` in a bounded child first; `load` itself once the child finished.
template <class Load>
auto load_bounded(std::string_view text, const YamlReadLimits &limits, Load load) {
    const ChildOutcome child = run_in_bounded_child([&] { load(text); }, {limits.deadline, limits.memory_bytes},
                                                    []() noexcept { return yaml_reads_abandoned(); });
    const auto limit_error = [](const std::string &why) { return YamlParserLimitError(YAML::Mark::null_mark(), why); };
    switch (child.end) {
    case ChildEnd::finished: break;
    case ChildEnd::abandoned:
        throw YamlReadAbandoned(YAML::Mark::null_mark(), "reading abandoned: the process is stopping");
    case ChildEnd::timed_out: throw limit_error("YAML parser did not finish within " + seconds_text(limits.deadline));
    case ChildEnd::out_of_memory:
        throw limit_error("YAML parser needed more than " + std::to_string(limits.memory_bytes >> 20) +
                          " MiB of memory");
    case ChildEnd::crashed: throw limit_error("YAML parser crashed (signal " + std::to_string(child.signal) + ")");
    }
    return load(text);
}

YAML::Node load_one(std::string_view text) {
    check_directives(text);
    check_aliases(text);
    return read_abandonable(text, [](std::istream &in) { return YAML::Load(in); });
}

std::vector<YAML::Node> load_every(std::string_view text) {
    check_directives(text);
    check_aliases(text);
    return read_abandonable(text, [](std::istream &in) { return YAML::LoadAll(in); });
}

}  // namespace

YamlReadLimits default_yaml_read_limits(std::size_t text_size) {
    constexpr std::size_t kDeadlineStep = std::size_t{256} * 1024;
    return {std::chrono::milliseconds(5000 + 1000 * static_cast<std::int64_t>(text_size / kDeadlineStep)),
            (std::size_t{1} << 30) + 100 * text_size};
}

void abandon_yaml_reads_when(bool (*stopping)() noexcept) { g_stopping.store(stopping); }

bool yaml_reads_abandoned() noexcept {
    const auto stopping = g_stopping.load();
    return stopping != nullptr && stopping();
}

YAML::Node load_yaml(std::string_view text) { return load_yaml(text, default_yaml_read_limits(text.size())); }

YAML::Node load_yaml(std::string_view text, const YamlReadLimits &limits) {
    return load_bounded(text, limits, load_one);
}

std::vector<YAML::Node> load_all_yaml(std::string_view text) {
    return load_all_yaml(text, default_yaml_read_limits(text.size()));
}

std::vector<YAML::Node> load_all_yaml(std::string_view text, const YamlReadLimits &limits) {
    return load_bounded(text, limits, load_every);
}

}  // namespace liveupdate::common
