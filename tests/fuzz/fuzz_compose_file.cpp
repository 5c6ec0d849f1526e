// libFuzzer target over the compose file reader: any YAML must end in a
// ComposeFile or errors with their line and column, never a crash (nor an
// exception: read_compose_file reports every problem as an issue).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "host/compose/compose_reader.hpp"

using namespace liveupdate::host::compose;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char *>(data), size);
    const VariableLookup variables = [](std::string_view name) -> std::optional<std::string> {
        if (name == "TAG") return std::string("1.0");
        return std::nullopt;
    };
    const FileRead read = read_compose_file("/fuzz/compose.yaml", text, variables);
    if (read.compose) (void)merge_compose_files({*read.compose, *read.compose});
    return 0;
}
