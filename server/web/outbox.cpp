#include "server/web/outbox.h"

#include <algorithm>

#include "server/web/ws_framer.h"

namespace tf::server {

namespace net = boost::asio;

Outbox::Push Outbox::push(Out m) {
    if (n_ >= limit_) return Push::Full;
    if (n_ == ring_.size()) grow();
    ring_[(head_ + n_) & (ring_.size() - 1)] = std::move(m);
    ++n_;
    if (writing_) return Push::Queued;
    writing_ = true;
    return Push::StartWrite;
}

void Outbox::grow() {
    std::vector<Out> bigger(ring_.empty() ? 4 : 2 * ring_.size());
    for (std::size_t i = 0; i < n_; ++i)
        bigger[i] = std::move(ring_[(head_ + i) & (ring_.size() - 1)]);
    ring_.swap(bigger);
    head_ = 0;
}

Outbox::Batch Outbox::next_write() {
    in_flight_ = std::min(n_, kMaxBatch);
    bufs_.clear();
    bool closes = false;
    if (framing_ == Framing::Lines) {
        for (std::size_t i = 0; i < in_flight_; ++i) {
            bufs_.push_back(net::buffer(*at(i).payload));
            bufs_.push_back(net::buffer("\n", 1));
        }
    } else {
        headers_.resize(10 * in_flight_);
        for (std::size_t i = 0; i < in_flight_; ++i) {
            const Out& o = at(i);
            char* h = headers_.data() + 10 * i;
            bufs_.push_back(net::buffer(h, ws_frame_header(o.opcode, o.payload->size(), h)));
            if (!o.payload->empty()) bufs_.push_back(net::buffer(*o.payload));
            closes = closes || o.opcode == ws_opcode::kClose;
        }
    }
    return {bufs_, closes};
}

bool Outbox::written() {
    for (; in_flight_ > 0; --in_flight_) {
        ring_[head_] = {};
        head_ = (head_ + 1) & (ring_.size() - 1);
        --n_;
    }
    if (n_ > 0) return true;
    writing_ = false;
    if (bufs_.capacity() > 2 * 8) {  // a burst is over: an idle connection keeps no batch
        std::string().swap(headers_);
        std::vector<net::const_buffer>().swap(bufs_);
    }
    return false;
}

void Outbox::drop_unsent() {
    for (; n_ > in_flight_; --n_) ring_[(head_ + n_ - 1) & (ring_.size() - 1)] = {};
}

}  // namespace tf::server
