// The outgoing half of a connection, the same for both transports: a FIFO of messages bounded
// by --queue-limit, drained in gather writes of up to 64 messages, so an ack and the event that
// follows it, or a burst of events, leave in one sendmsg. TCP frames a message as the line and
// a newline; WebSocket as a frame header (2 to 10 bytes) and the payload. The outbox only
// keeps the queue and builds the buffers; the session owns the socket, does the writes and
// decides what a full queue or a close means for its protocol. One strand uses it.
//
// Nothing is allocated before the first message (the ring grows by doubling; an empty
// std::deque already holds about 600 bytes), and an idle connection keeps no batch.
#pragma once

#include <boost/asio/buffer.hpp>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "server/base/participant.h"

namespace tf::server {

// One outgoing message: a text shared with every other receiver, or (WebSocket only) a control
// frame with its opcode.
struct Out {
    Msg payload;
    std::uint8_t opcode = 1;  // ws_opcode::kText
};

class Outbox {
  public:
    enum class Framing { Lines, WebSocket };
    static constexpr std::size_t kMaxBatch = 64;

    Outbox(Framing framing, std::size_t limit) : framing_(framing), limit_(limit) {}

    enum class Push {
        Queued,      // goes with the write pending or in flight
        StartWrite,  // nothing was being written: the caller starts a write (after one post,
                     // so what is delivered meanwhile joins it)
        Full,        // --queue-limit messages wait: the reader is too slow, nothing was queued
    };
    Push push(Out m);

    // The next write: every queued message up to kMaxBatch, framed. `closes` when a close frame
    // is among them (nothing may follow it).
    struct Batch {
        const std::vector<boost::asio::const_buffer>& buffers;
        bool closes;
    };
    Batch next_write();
    // That write is done: its messages leave the queue. True when more wait (write again);
    // false: writing ends and an idle connection gives its batch buffers back.
    bool written();
    // Drops what waits behind the write in flight (a close that cuts the queue short). A write
    // still pending then finds an empty batch: it calls written() and writes nothing.
    void drop_unsent();

    bool empty() const { return n_ == 0; }
    std::size_t size() const { return n_; }
    bool writing() const { return writing_; }  // a write is pending or in flight

  private:
    const Out& at(std::size_t i) const { return ring_[(head_ + i) & (ring_.size() - 1)]; }
    void grow();

    const Framing framing_;
    const std::size_t limit_;
    std::vector<Out> ring_;  // size 0 or a power of two
    std::size_t head_ = 0, n_ = 0;
    std::size_t in_flight_ = 0;  // the first in_flight_ messages are being written
    bool writing_ = false;
    std::string headers_;  // the write in flight: 10 bytes per WebSocket frame
    std::vector<boost::asio::const_buffer> bufs_;  // its buffers
};

}  // namespace tf::server
