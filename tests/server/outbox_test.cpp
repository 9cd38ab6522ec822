// The transports' outgoing queue (server/web/outbox.h): batches of at most 64, framing as lines or
// WebSocket frames, the queue limit, a close frame seen in its batch, dropping what waits
// behind the write in flight, and the ring's order across growth and wrap-around.
#include <doctest/doctest.h>

#include <boost/asio/buffer.hpp>
#include <memory>
#include <string>

#include "server/web/outbox.h"
#include "server/web/ws_framer.h"

namespace tf::server {
namespace {

Out text(std::string s) {
    return {std::make_shared<const std::string>(std::move(s))};
}

std::string bytes(const Outbox::Batch& b) {
    std::string all;
    for (const auto& buf : b.buffers) all.append(static_cast<const char*>(buf.data()), buf.size());
    return all;
}

TEST_CASE("outbox: lines, one write for everything queued") {
    Outbox o(Outbox::Framing::Lines, 100);
    CHECK(o.push(text("a")) == Outbox::Push::StartWrite);
    CHECK(o.push(text("bc")) == Outbox::Push::Queued);
    CHECK(o.writing());
    auto b = o.next_write();
    CHECK(bytes(b) == "a\nbc\n");
    CHECK_FALSE(b.closes);
    CHECK(o.push(text("d")) == Outbox::Push::Queued);  // behind the write in flight
    CHECK(o.written());
    CHECK(bytes(o.next_write()) == "d\n");
    CHECK_FALSE(o.written());
    CHECK_FALSE(o.writing());
    CHECK(o.push(text("e")) == Outbox::Push::StartWrite);
}

TEST_CASE("outbox: a batch holds at most 64 messages, in order") {
    Outbox o(Outbox::Framing::Lines, 1000);
    for (int i = 0; i < 150; ++i) o.push(text(std::to_string(i)));
    std::string expect;
    for (int i = 0; i < 64; ++i) expect += std::to_string(i) + "\n";
    CHECK(bytes(o.next_write()) == expect);
    CHECK(o.written());
    CHECK(o.size() == 86);
    o.next_write();
    CHECK(o.written());
    expect.clear();
    for (int i = 128; i < 150; ++i) expect += std::to_string(i) + "\n";
    CHECK(bytes(o.next_write()) == expect);
    CHECK_FALSE(o.written());
    CHECK(o.empty());
}

TEST_CASE("outbox: order survives the ring wrapping and growing") {
    Outbox o(Outbox::Framing::Lines, 1000);
    int next_in = 0, next_out = 0;
    for (int round = 0; round < 20; ++round) {
        for (int i = 0; i < round + 3; ++i) o.push(text(std::to_string(next_in++)));
        auto got = bytes(o.next_write());
        std::string expect;
        for (std::size_t i = 0; i < std::min<std::size_t>(o.size(), 64); ++i)
            expect += std::to_string(next_out++) + "\n";
        REQUIRE(got == expect);
        while (o.written()) {
            expect.clear();
            for (std::size_t i = 0; i < std::min<std::size_t>(o.size(), 64); ++i)
                expect += std::to_string(next_out++) + "\n";
            REQUIRE(bytes(o.next_write()) == expect);
        }
    }
    CHECK(next_in == next_out);
}

TEST_CASE("outbox: the limit refuses a message and keeps the queue") {
    Outbox o(Outbox::Framing::Lines, 3);
    for (int i = 0; i < 3; ++i) CHECK(o.push(text("x")) != Outbox::Push::Full);
    CHECK(o.push(text("y")) == Outbox::Push::Full);
    CHECK(o.size() == 3);
}

TEST_CASE("outbox: WebSocket frames, a close frame marks its batch") {
    Outbox o(Outbox::Framing::WebSocket, 100);
    o.push(text("hi"));
    o.push({std::make_shared<const std::string>(), ws_opcode::kPing});
    std::string big(300, 'z');
    o.push(text(big));
    o.push({std::make_shared<const std::string>(std::string("\x03\xe8", 2)), ws_opcode::kClose});
    auto b = o.next_write();
    CHECK(b.closes);
    char h[10];
    std::string expect(h, ws_frame_header(ws_opcode::kText, 2, h));
    expect += "hi";
    expect.append(h, ws_frame_header(ws_opcode::kPing, 0, h));
    expect.append(h, ws_frame_header(ws_opcode::kText, 300, h));
    expect += big;
    expect.append(h, ws_frame_header(ws_opcode::kClose, 2, h));
    expect += std::string("\x03\xe8", 2);
    CHECK(bytes(b) == expect);
    CHECK_FALSE(o.written());
}

TEST_CASE("outbox: drop_unsent keeps only the write in flight") {
    Outbox o(Outbox::Framing::Lines, 100);
    o.push(text("a"));
    o.push(text("b"));
    o.next_write();  // a and b in flight
    o.push(text("c"));
    o.push(text("d"));
    o.drop_unsent();
    CHECK(o.size() == 2);
    CHECK_FALSE(o.written());  // nothing after a and b
    CHECK_FALSE(o.writing());

    o.push(text("e"));  // a write is pending, not yet started
    o.drop_unsent();
    CHECK(o.empty());
    CHECK(o.writing());  // the pending write still comes, finds nothing
    CHECK(o.next_write().buffers.empty());
    CHECK_FALSE(o.written());
    CHECK(o.push(text("f")) == Outbox::Push::StartWrite);
}

}  // namespace
}  // namespace tf::server
