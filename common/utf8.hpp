// File names are bytes; the objects' JSON carries only UTF-8. A path that is
// not valid UTF-8 cannot be put in a FileWatch status, an event or a log line
// as it is: every part that meets one (watchers, the initial sync's walk, the
// archive builder) leaves it out with a warning naming it in a safe form.
#pragma once

#include <string>
#include <string_view>

namespace liveupdate::common {

// Well-formed UTF-8 (no overlong forms, surrogates or code points past U+10FFFF).
bool is_valid_utf8(std::string_view text);

// The path for a message: valid UTF-8 stays as it is except control
// characters; every byte that is not part of a valid sequence, and every
// control character, is written \xNN (a backslash itself as \\).
std::string printable_path(std::string_view path);

}  // namespace liveupdate::common
