// A test updater that shows the host's forward guard: config
// {"ask": "/app/a.txt /app/b.txt", "keep": "/app/a.txt"}. Each update reads
// its whole archive first (so the host agreed on the carried digests before
// it asks), then logs "expected PATH: any | absent | digest HEX" for each
// "ask" path and each delete (or "unguarded" once when the request has no
// guard), then calls kept() for each "keep" path, from threads of its own.
// It writes nothing anywhere.
#include <cstdio>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "liveupdate/updater.hpp"

namespace {

namespace lu = liveupdate::updater;

class GuardUpdater {
public:
    static constexpr const char *name = "guard";
    static constexpr const char *version = "0.0.1";

    GuardUpdater(std::string_view config, const lu::Host &)
        : ask_(words(config, "ask")), keep_(words(config, "keep")) {}

    lu::Outcome update(const lu::Request &request) {
        if (request.archive) {
            char buffer[4096];
            for (std::int64_t n; (n = request.archive(buffer, sizeof buffer)) != 0;)
                if (n < 0) return lu::Outcome::infra_failure("the archive failed");
        }
        if (!request.guard) {
            request.log(LU_LOG_INFO, "unguarded");
            return lu::Outcome::ok();
        }
        std::vector<std::string> asked = ask_;
        asked.insert(asked.end(), request.delete_paths.begin(), request.delete_paths.end());
        for (const std::string &path : asked)
            request.log(LU_LOG_INFO, "expected " + path + ": " + answer(request, path));
        std::vector<std::thread> threads;
        for (const std::string &path : keep_)
            threads.emplace_back([&request, path] { request.guard.kept(path, "holds other content (3 bytes)"); });
        for (std::thread &thread : threads) thread.join();
        return lu::Outcome::ok();
    }

private:
    static std::string answer(const lu::Request &request, const std::string &path) {
        const lu::ExpectedContent expected = request.guard.expected(path);
        switch (expected.kind) {
        case lu::ExpectedContent::Kind::absent: return "absent";
        case lu::ExpectedContent::Kind::digest: {
            char hex[17];
            std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(expected.digest));
            return std::string("digest ") + hex;
        }
        case lu::ExpectedContent::Kind::any: break;
        }
        return "any";
    }

    // The space-separated words of the config's string member key.
    static std::vector<std::string> words(std::string_view config, const std::string &key) {
        std::vector<std::string> out;
        const std::size_t at = config.find("\"" + key + "\": \"");
        if (at == std::string_view::npos) return out;
        const std::size_t begin = at + key.size() + 5;
        std::istringstream in(std::string(config.substr(begin, config.find('"', begin) - begin)));
        for (std::string word; in >> word;) out.push_back(word);
        return out;
    }

    std::vector<std::string> ask_;
    std::vector<std::string> keep_;
};

}  // namespace

extern "C" LU_EXPORT const lu_updater_api *lu_updater_plugin_entry(uint32_t abi_version,
                                                                   const lu_plugin_info **out_info) {
    return lu::entry<GuardUpdater>(abi_version, out_info);
}
