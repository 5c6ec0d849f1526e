// Every YAML file the project reads (compose files, YAML object files,
// kubeconfig) is loaded here. yaml-cpp shares an alias's node, so loading is
// cheap, but every walk of the result expands it: 1 KiB of nested anchors
// (the "billion laughs") expands to billions of nodes. As YAML libraries'
// safe loaders do, a document is first counted as its walks will see it and
// refused when that count is out of proportion. And yaml-cpp 0.7 can spin
// for ever on a few bytes (`&",`): a text is first parsed in a forked child
// under a deadline and a memory limit (common/bounded_child), and parsed
// here only once that child finished.
#pragma once

#include <chrono>
#include <cstddef>
#include <string_view>
#include <vector>

#include <yaml-cpp/yaml.h>

namespace liveupdate::common {

// Refused whatever the document's own size.
inline constexpr std::size_t kMaxExpandedYamlNodes = 1'000'000;
// Up to this many nodes, a document may expand as it likes.
inline constexpr std::size_t kFreeExpandedYamlNodes = 10'000;
// Beyond kFreeExpandedYamlNodes: at most this many nodes per node written.
inline constexpr std::size_t kMaxYamlExpansionRatio = 100;

// A document refused for its aliases: too many nodes once they are expanded,
// or an alias inside the node it names (a walk would never end). A
// YAML::ParserException, so that what catches yaml-cpp's errors catches it;
// e.msg says why and e.mark where.
class YamlAliasError : public YAML::ParserException {
public:
    using YAML::ParserException::ParserException;
};

// A map with a key twice (yaml-cpp keeps both, and readers take one or the
// other): e.msg says which key, its map's path and the first's line; e.mark
// is the second.
class YamlDuplicateKeyError : public YAML::ParserException {
public:
    using YAML::ParserException::ParserException;
};

// A read given up because the process is stopping (abandon_yaml_reads_when).
class YamlReadAbandoned : public YAML::ParserException {
public:
    using YAML::ParserException::ParserException;
};

// A read that yaml-cpp did not finish in its child: past the deadline, out
// of memory, or crashed. e.msg says which; e.mark is null (no position).
class YamlParserLimitError : public YAML::ParserException {
public:
    using YAML::ParserException::ParserException;
};

struct YamlReadLimits {
    std::chrono::milliseconds deadline;
    std::size_t memory_bytes;
};

// 5 s, and 1 s more per 256 KiB; 1 GiB, and 100 bytes more per byte of text.
YamlReadLimits default_yaml_read_limits(std::size_t text_size);

// A large file takes seconds to read: a process that is stopping (lu-host
// after SIGTERM) does not wait for that. Reads check `stopping` every 64 KiB
// and give up once it says so. Set once, before any read; async-signal-safe
// flags only (an atomic a signal handler sets).
void abandon_yaml_reads_when(bool (*stopping)() noexcept);
// True once reads are to be given up: long walks of a loaded document check it too.
bool yaml_reads_abandoned() noexcept;

// YAML::Load and YAML::LoadAll, after the checks. Throw YamlAliasError,
// YamlDuplicateKeyError, YamlReadAbandoned, YamlParserLimitError or yaml-cpp's YAML::ParserException.
YAML::Node load_yaml(std::string_view text);
YAML::Node load_yaml(std::string_view text, const YamlReadLimits &limits);
std::vector<YAML::Node> load_all_yaml(std::string_view text);
std::vector<YAML::Node> load_all_yaml(std::string_view text, const YamlReadLimits &limits);

}  // namespace liveupdate::common
