#include "host/up/builtin_ignores.hpp"

#include "common/builtin_ignores.hpp"

namespace liveupdate::host::up {

bool is_builtin_ignored(std::string_view absolute_path) { return common::builtin_ignores().matches(absolute_path); }

}  // namespace liveupdate::host::up
