// libFuzzer target over the .env parser (a file in the user's project): any
// text must end in values or a DotenvError, never a crash.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "host/compose/dotenv.hpp"

using namespace liveupdate::host::compose;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char *>(data), size);
    // One variable set in the environment, so that lookups hit as well as miss.
    const VariableLookup environment = [](std::string_view name) -> std::optional<std::string> {
        if (name == "HOME") return std::string("/home/fuzz");
        return std::nullopt;
    };
    try {
        (void)parse_dotenv(text, environment);
    } catch (const DotenvError &) {
        // The expected outcome for a malformed file: Compose would refuse it too.
    }
    return 0;
}
