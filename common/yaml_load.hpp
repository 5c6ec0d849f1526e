// Every YAML file the project reads (compose files, YAML object files,
// kubeconfig) is loaded here. yaml-cpp shares an alias's node, so loading is
// cheap, but every walk of the result expands it: 1 KiB of nested anchors
// (the "billion laughs") expands to billions of nodes. As YAML libraries'
// safe loaders do, a document is first counted as its walks will see it and
// refused when that count is out of proportion.
#pragma once

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

// A read given up because the process is stopping (abandon_yaml_reads_when).
class YamlReadAbandoned : public YAML::ParserException {
public:
    using YAML::ParserException::ParserException;
};

// A large file takes seconds to read: a process that is stopping (lu-host
// after SIGTERM) does not wait for that. Reads check `stopping` every 64 KiB
// and give up once it says so. Set once, before any read; async-signal-safe
// flags only (an atomic a signal handler sets).
void abandon_yaml_reads_when(bool (*stopping)() noexcept);
// True once reads are to be given up: long walks of a loaded document check it too.
bool yaml_reads_abandoned() noexcept;

// YAML::Load and YAML::LoadAll, after the check. Throw YamlAliasError,
// YamlReadAbandoned or yaml-cpp's YAML::ParserException.
YAML::Node load_yaml(std::string_view text);
std::vector<YAML::Node> load_all_yaml(std::string_view text);

}  // namespace liveupdate::common
