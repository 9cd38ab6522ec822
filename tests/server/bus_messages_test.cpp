// The bus's messages between nodes (server/cluster/bus_messages.h): every kind written and read
// back, bodies carried untouched, and what a node refuses or tolerates from another; the delivery
// batch that lets one operation's recipients on another node share one message.
#include <doctest/doctest.h>

#include "server/cluster/bus_messages.h"
#include "server/room/delivery_batch.h"

#include <string>
#include <thread>
#include <vector>

namespace tf::server::bus {

namespace {
Decoded round(const Message& m, std::string_view body = {}) {
    static std::string keep;  // the payload the decoded body points into
    keep = encode(m, body);
    std::string why;
    auto d = decode(keep, &why);
    REQUIRE_MESSAGE(d.has_value(), why);
    return *d;
}
}  // namespace

TEST_CASE("bus messages: every kind round-trips with its body") {
    auto req = round(Req{"n1@ab", 7, "k3v9qa", 12, "t7", "p1", "ann", true},
                     R"({"type":"turn", "ref" : "t7"})");
    auto* r = std::get_if<Req>(&req.message);
    REQUIRE(r);
    CHECK(r->from == "n1@ab");
    CHECK(r->conn == 7);
    CHECK(r->code == "k3v9qa");
    CHECK(r->seq == 12);
    CHECK(r->ref == "t7");  // from the header: the client's spacing does not matter
    CHECK(r->player_id == "p1");
    CHECK(r->player_name == "ann");
    CHECK(r->account);
    CHECK(req.body == R"({"type":"turn", "ref" : "t7"})");

    auto out = round(Out{"n2", "n1@ab", {3, 4, 5}, 0}, "{\"type\":\"event\"}\nsecond line");
    auto* o = std::get_if<Out>(&out.message);
    REQUIRE(o);
    CHECK(o->conns == std::vector<std::uint64_t>{3, 4, 5});
    CHECK(o->seq == 0);
    CHECK(out.body == "{\"type\":\"event\"}\nsecond line");
    CHECK(std::get<Out>(round(Out{"n2", "n1@ab", {3}, 9}).message).seq == 9);

    CHECK(std::get<Gone>(round(Gone{"n1@ab", 3}).message).conn == 3);
    CHECK(std::get<Alive>(round(Alive{"n1@ab", {1, 2}}).message).conns.size() == 2);
    CHECK(std::get<Alive>(round(Alive{"n1@ab", {}}).message).conns.empty());
    CHECK(std::get<NotMine>(round(NotMine{"n2", "n1@ab", 3, "abc"}).message).code == "abc");
    CHECK(std::get<Close>(round(Close{"n2", "n1@ab", 3, "flood"}).message).reason == "flood");
    CHECK(std::get<Back>(round(Back{"n2"}).message).from == "n2");
    auto lobby = round(Lobby{"n2", "abc"}, "null\nnull");
    CHECK(std::get<Lobby>(lobby.message).code == "abc");
    CHECK(lobby.body == "null\nnull");
    CHECK(std::get<Moved>(round(Moved{"abc", "n3"}).message).owner == "n3");
    CHECK(std::holds_alternative<Sync>(round(Sync{"n2"}).message));
    CHECK(std::get<End>(round(End{"n2", "p1", "signed out"}).message).player == "p1");
    CHECK(!std::get<End>(round(End{"n2", "p1", "signed out"}).message).closed);
    CHECK(std::get<End>(round(End{"n2", "p1", "closed", true}).message).closed);
    CHECK(std::holds_alternative<Handover>(round(Handover{"n2"}).message));
    CHECK(std::get<Rewatch>(round(Rewatch{"n2", "n1@ab", 3, "abc"}).message).code == "abc");
}

TEST_CASE("bus messages: the header names the version") {
    const std::string payload = encode(Back{"n2"});
    CHECK(payload.find("\"v\":1") != std::string::npos);
    CHECK(payload.back() == '\n');
}

TEST_CASE("bus messages: what is refused, and what a rolling upgrade needs") {
    std::string why;
    CHECK_FALSE(decode("no newline", &why));
    CHECK(why == "no header line");
    CHECK_FALSE(decode("[1,2]\n", &why));
    CHECK_FALSE(decode("{\"from\":\"n1\"}\n", &why));
    CHECK(why.find("\"k\"") != std::string::npos);
    CHECK_FALSE(decode("{\"k\":\"gone\",\"from\":\"n1\"}\n", &why));  // no conn
    CHECK(why.find("conn") != std::string::npos);
    CHECK_FALSE(decode("{\"k\":\"gone\",\"from\":\"n1\",\"conn\":-3}\n", &why));
    CHECK_FALSE(decode("{\"k\":\"gone\",\"from\":7,\"conn\":3}\n", &why));
    CHECK_FALSE(decode("{\"k\":\"out\",\"from\":\"n\",\"to\":\"m\",\"conns\":[]}\n", &why));
    CHECK_FALSE(decode("{\"k\":\"alive\",\"from\":\"n\",\"conns\":[\"x\"]}\n", &why));
    CHECK_FALSE(decode("{\"k\":\"gone\",\"from\":\"n\",\"conn\":3,\"v\":0}\n", &why));
    // A newer node's kind: refused as such (the caller ignores it).
    CHECK_FALSE(decode("{\"k\":\"teleport\",\"v\":2}\n", &why));
    CHECK(why.find("unknown kind") != std::string::npos);
    // No version (the first release), extra fields (a newer one), one "conn" for an out.
    auto old = decode("{\"k\":\"out\",\"from\":\"n2\",\"to\":\"n1@a\",\"conn\":4,\"x\":1}\nbody");
    REQUIRE(old);
    CHECK(std::get<Out>(old->message).conns == std::vector<std::uint64_t>{4});
    CHECK(old->body == "body");
    CHECK(decode("{\"k\":\"back\",\"from\":\"n2\",\"v\":2,\"new\":[1]}\n"));
}

}  // namespace tf::server::bus

TEST_CASE("a delivery batch holds what is deferred until its outermost end, once per key") {
    using tf::server::DeliveryBatch;
    std::vector<std::string> ran;
    CHECK_FALSE(DeliveryBatch::defer(&ran, [&] { ran.push_back("unbatched"); }));
    {
        DeliveryBatch outer;
        int a = 0, b = 0;
        CHECK(DeliveryBatch::defer(&a, [&] { ran.push_back("a"); }));
        {
            DeliveryBatch inner;
            CHECK(DeliveryBatch::defer(&a, [&] { ran.push_back("a again"); }));
            CHECK(DeliveryBatch::defer(&b, [&] { ran.push_back("b"); }));
        }
        CHECK(ran.empty());
    }
    CHECK(ran == std::vector<std::string>{"a", "b"});
    std::thread other([&] { CHECK_FALSE(DeliveryBatch::defer(&ran, [] {})); });
    {
        DeliveryBatch here;
        std::thread t([&] { CHECK_FALSE(DeliveryBatch::defer(&ran, [] {})); });
        t.join();
    }
    other.join();
}
