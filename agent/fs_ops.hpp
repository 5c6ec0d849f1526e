// lu-agent's filesystem requests. Each returns a Result: error 0, or the
// errno and what failed, with the path.
#pragma once

#include "common/agent_protocol/messages.hpp"

namespace liveupdate::agent {

Result write_file(const WriteFile &request);
Result make_dir(const MakeDir &request);
Result make_symlink(const Symlink &request);
Result remove_path(const Remove &request);

}  // namespace liveupdate::agent
