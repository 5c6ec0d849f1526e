#include "common/line_splitter.hpp"

namespace liveupdate::common {
namespace {

// Bytes at the end of `text` that start a UTF-8 sequence the cut left unfinished.
std::size_t unfinished_sequence(std::string_view text) {
    for (std::size_t back = 1; back <= 4 && back <= text.size(); ++back) {
        const auto c = static_cast<unsigned char>(text[text.size() - back]);
        if ((c & 0xC0) == 0x80) continue;  // a continuation byte: look further back
        const std::size_t length = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
        return length > back ? back : 0;
    }
    return 0;
}

}  // namespace

std::string LineSplitter::cut_marker(std::size_t max_line_bytes) {
    return " ... [line cut at " + std::to_string(max_line_bytes) + " bytes]";
}

void LineSplitter::feed(std::string_view bytes) {
    while (!bytes.empty()) {
        if (after_cr_ && bytes.front() == '\n') bytes.remove_prefix(1);  // "\r\n" ends one line
        after_cr_ = false;
        const auto end = bytes.find_first_of("\r\n");
        const std::string_view piece = bytes.substr(0, end);
        if (!dropping_) {
            const std::size_t room = max_ - pending_.size();
            pending_.append(piece.substr(0, room));
            if (piece.size() > room) cut();
        }
        if (end == std::string_view::npos) return;
        after_cr_ = bytes[end] == '\r';
        bytes.remove_prefix(end + 1);
        end_line();
    }
}

void LineSplitter::flush() {
    if (!pending_.empty() && !dropping_) emit_(pending_);
    pending_.clear();
    after_cr_ = false;
    dropping_ = false;
}

void LineSplitter::end_line() {
    if (!dropping_) emit_(pending_);
    pending_.clear();
    dropping_ = false;
}

void LineSplitter::cut() {
    pending_.resize(pending_.size() - unfinished_sequence(pending_));
    pending_ += cut_marker(max_);
    emit_(pending_);
    pending_.clear();
    dropping_ = true;
}

}  // namespace liveupdate::common
