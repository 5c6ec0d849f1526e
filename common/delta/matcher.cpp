#include "common/delta/matcher.hpp"

#include <algorithm>

namespace liveupdate::delta {

Matcher::Matcher(const Signature &signature, DeltaSink sink, std::size_t max_literal)
    : signature_(signature),
      sink_(std::move(sink)),
      max_literal_(std::max<std::size_t>(max_literal, 1)),
      block_(signature.block_size),
      filter_((std::size_t{1} << kFilterBits) / 64) {
    if (block_ == 0) throw DeltaError("a block size of 0");
    full_blocks_ = static_cast<std::size_t>(signature.file_size / block_);
    candidates_.reserve(full_blocks_);
    for (std::size_t i = 0; i < full_blocks_; ++i) {
        const auto weak = signature.blocks[i].weak;
        candidates_.push_back({weak, static_cast<std::uint32_t>(i)});
        filter_[filter_bit(weak) / 64] |= std::uint64_t{1} << (filter_bit(weak) % 64);
    }
    std::stable_sort(candidates_.begin(), candidates_.end(),
                     [](const Candidate &a, const Candidate &b) { return a.weak < b.weak; });
}

void Matcher::feed(std::string_view bytes) {
    buffer_.append(bytes);
    scan();
    compact();
}

bool Matcher::try_block(std::size_t index) {
    const auto &b = signature_.blocks[index];
    return strong_hash(std::string_view(buffer_).substr(position_, signature_.block_length(index))) == b.strong;
}

bool Matcher::try_weak_match() {
    const auto weak = checksum_.value();
    if (!may_hold(weak)) return false;
    auto it = std::lower_bound(candidates_.begin(), candidates_.end(), weak,
                               [](const Candidate &c, std::uint32_t w) { return c.weak < w; });
    const StrongHash window = strong_hash(std::string_view(buffer_).substr(position_, block_));
    // Identical blocks share a checksum: the one after the last match keeps copies contiguous.
    std::optional<std::size_t> found;
    for (; it != candidates_.end() && it->weak == weak; ++it) {
        if (signature_.blocks[it->index].strong != window) continue;
        if (!found || it->index == expected_) found = it->index;
        if (it->index == expected_) break;
    }
    if (!found) return false;
    take_match(*found);
    return true;
}

void Matcher::take_match(std::size_t index) {
    flush_literal();
    const auto length = signature_.block_length(index);
    sink_.copy(signature_.block_offset(index), length);
    position_ += length;
    literal_start_ = position_;
    rolling_ = false;
    looked_up_ = false;
    expected_ = index + 1;
}

void Matcher::scan() {
    while (buffer_.size() - position_ >= block_) {
        if (!rolling_) {
            if (expected_ < full_blocks_ && try_block(expected_)) {
                take_match(expected_);
                continue;
            }
            checksum_.reset(at(position_), block_);
            rolling_ = true;
            looked_up_ = false;
        }
        if (!looked_up_) {
            if (try_weak_match()) continue;
            looked_up_ = true;
        }
        if (buffer_.size() - position_ < block_ + 1) break;
        checksum_.roll(*at(position_), *at(position_ + block_));
        ++position_;
        looked_up_ = false;
        if (position_ - literal_start_ >= max_literal_) flush_literal();
    }
}

void Matcher::finish() {
    scan();
    // A short last block of the old file can end the new one.
    const std::size_t tail = buffer_.size() - position_;
    const std::size_t last = signature_.blocks.size();
    if (tail > 0 && last > full_blocks_ && signature_.block_length(last - 1) == tail && try_block(last - 1))
        take_match(last - 1);
    position_ = buffer_.size();
    flush_literal();
    buffer_.clear();
    position_ = literal_start_ = 0;
}

void Matcher::flush_literal() {
    for (std::size_t start = literal_start_; start < position_;) {
        const auto length = std::min(max_literal_, position_ - start);
        sink_.literal(std::string_view(buffer_).substr(start, length));
        start += length;
    }
    literal_start_ = position_;
}

void Matcher::compact() {
    // Literals pending stay (at most max_literal), so does the window.
    const std::size_t keep_from = std::min(literal_start_, position_);
    if (keep_from < std::size_t{1} << 20 || keep_from * 2 < buffer_.size()) return;
    buffer_.erase(0, keep_from);
    literal_start_ -= keep_from;
    position_ -= keep_from;
}

}  // namespace liveupdate::delta
