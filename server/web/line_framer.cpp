#include "server/web/line_framer.h"

namespace tf::server {

// A line of nothing but spaces and tabs is skipped like an empty one (PROTOCOL.md).
bool LineFramer::blank(std::string_view line) {
    return line.find_first_not_of(" \t") == std::string_view::npos;
}

void LineFramer::feed(std::string_view bytes) {
    if (too_long_) return;
    if (pos_ > 0) {  // drop what was consumed, so the buffer holds one partial line at most
        buf_.erase(0, pos_);
        scan_ -= pos_;
        pos_ = 0;
    }
    buf_.append(bytes);
}

LineFramer::Result LineFramer::next() {
    while (!too_long_) {
        std::size_t nl = buf_.find('\n', scan_);
        if (nl == std::string::npos) {
            scan_ = buf_.size();
            if (buf_.size() - pos_ > max_) break;  // the limit is reached without a '\n'
            return {Status::NeedMore, {}};
        }
        if (nl - pos_ > max_) break;
        std::string_view line(buf_.data() + pos_, nl - pos_);
        pos_ = scan_ = nl + 1;
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        if (!blank(line)) return {Status::Line, line};
    }
    too_long_ = true;
    buf_.clear();
    pos_ = scan_ = 0;
    return {Status::TooLong, {}};
}

}  // namespace tf::server
