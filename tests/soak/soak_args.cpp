#include "tests/soak/soak_args.hpp"

#include <chrono>
#include <sstream>
#include <stdexcept>

#include "tests/soak/faults.hpp"
#include "tests/soak/source_ops.hpp"

namespace lu_soak {

namespace {

std::uint64_t number(const std::string &flag, const char *text, std::uint64_t at_least) {
    if (text == nullptr) throw std::invalid_argument(flag + " needs a number");
    std::size_t used = 0;
    std::uint64_t value = 0;
    try {
        value = std::stoull(text, &used);
    } catch (const std::exception &) {
        used = 0;
    }
    if (used == 0 || text[used] != '\0' || value < at_least)
        throw std::invalid_argument(flag + " needs a number of at least " + std::to_string(at_least) + ", got " + text);
    return value;
}

std::set<std::string> names_of(const std::string &flag, const char *text) {
    if (text == nullptr) throw std::invalid_argument(flag + " needs a list of names");
    std::set<std::string> known(SourceOps::kinds().begin(), SourceOps::kinds().end());
    known.insert("symlink-loop");
    known.insert("app-write");
    known.insert("sync-back");
    known.insert("sync-back-race");
    for (const Fault fault : kAllFaults) known.insert(fault_name(fault));
    std::set<std::string> names;
    std::stringstream list(text);
    for (std::string name; std::getline(list, name, ',');) {
        if (!known.contains(name)) {
            std::string message = flag;
            message.append(": unknown name ").append(name).append(" (known:");
            for (const auto &k : known) message.append(" ").append(k);
            throw std::invalid_argument(message + ")");
        }
        names.insert(name);
    }
    return names;
}

}  // namespace

SoakArgs parse_soak_args(int argc, char **argv, SoakArgs defaults) {
    SoakArgs args = std::move(defaults);
    for (int i = 1; i < argc; ++i) {
        const std::string flag = argv[i];
        const char *value = i + 1 < argc ? argv[i + 1] : nullptr;
        if (flag == "--verbose") {
            args.verbose = true;
            continue;
        }
        if (flag == "--seed")
            args.seed = number(flag, value, 0);
        else if (flag == "--seeds")
            args.seeds = number(flag, value, 1);
        else if (flag == "--ops")
            args.ops = number(flag, value, 1);
        else if (flag == "--faults-every")
            args.faults_every = number(flag, value, 1);
        else if (flag == "--without")
            args.without = names_of(flag, value);
        else
            throw std::invalid_argument("unknown argument " + flag);
        ++i;
    }
    return args;
}

std::uint64_t seed_from_clock() {
    const auto now = std::chrono::system_clock::now().time_since_epoch();
    return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::microseconds>(now).count()) % 1000000000;
}

}  // namespace lu_soak
