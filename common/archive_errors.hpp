// libarchive's error text, never NULL: libarchive leaves it unset when a
// read or write callback failed without saying why (a stream that returned
// -1), and a std::string built from that NULL crashes the process.
#pragma once

#include <archive.h>

#include <cstring>
#include <string>

namespace liveupdate::common {

inline std::string archive_error_text(struct archive *a) {
    if (const char *text = archive_error_string(a); text != nullptr) return text;
    if (const int number = archive_errno(a); number > 0) return std::strerror(number);
    return "libarchive gave no reason (its data stream failed)";
}

}  // namespace liveupdate::common
