#include "host/up/line_splitter.hpp"

namespace liveupdate::host::up {

void LineSplitter::feed(std::string_view bytes) {
    for (const char c : bytes) {
        const bool lf_after_cr = c == '\n' && after_cr_;
        after_cr_ = c == '\r';
        if (c == '\n' || c == '\r') {
            if (!lf_after_cr) emit_(pending_);
            pending_.clear();
            continue;
        }
        pending_ += c;
        if (pending_.size() >= kMaxLineBytes) {
            emit_(pending_);
            pending_.clear();
        }
    }
}

void LineSplitter::flush() {
    if (!pending_.empty()) emit_(pending_);
    pending_.clear();
    after_cr_ = false;
}

}  // namespace liveupdate::host::up
