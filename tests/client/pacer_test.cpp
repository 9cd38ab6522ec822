// The client's pacer (client/lib/pacer.h) against a model of the server's credit bucket
// (server/session/session.cpp, Session::take_credit), on a simulated clock: a sender that sends
// whenever the pacer lets it is never refused by a server with the default credits, even when the
// network delivers its messages late and bunched; against a stricter server, slow_down() brings it
// under that server's pace.
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <random>

#include "client/lib/pacer.h"
#include "proto/messages.h"
#include "server/base/config.h"

using tf::client::Pacer;
using Clock = Pacer::Clock;
using std::chrono::duration;
using std::chrono::milliseconds;

namespace {

// The server's token bucket, as Session::take_credit() keeps it: full when the connection opens,
// refilled at each message that arrives.
struct ServerBucket {
    double rate, burst, credits;
    Clock::time_point refilled;
    ServerBucket(double rate_, double burst_, Clock::time_point opened)
        : rate(rate_), burst(burst_), credits(burst_), refilled(opened) {}
    bool take(Clock::time_point now) {
        credits = std::min(burst, credits + duration<double>(now - refilled).count() * rate);
        refilled = now;
        if (credits < 1) return false;
        credits -= 1;
        return true;
    }
};

// A time some way after the clock's epoch (the pacer must not care where time starts).
const Clock::time_point kStart = Clock::time_point() + std::chrono::hours(1);

// Sends `n` messages from `start`, each as soon as the pacer allows; the times they were sent.
std::vector<Clock::time_point> send_greedily(Pacer& p, Clock::time_point start, int n) {
    std::vector<Clock::time_point> sent;
    Clock::time_point now = start;
    for (int i = 0; i < n; ++i) {
        now += p.delay(now);
        REQUIRE(p.delay(now) == Clock::duration::zero());
        p.sent(now);
        sent.push_back(now);
    }
    return sent;
}

}  // namespace

TEST_CASE("pacer: the credits it paces under are the server's defaults") {
    const tf::server::Config server;
    CHECK(server.rate_per_second == tf::proto::kDefaultCreditRate);
    CHECK(server.rate_burst == tf::proto::kDefaultCreditBurst);
}

TEST_CASE("pacer: the burst goes at once, then one message per 1/rate") {
    static_assert(Pacer::kRate < tf::proto::kDefaultCreditRate);
    static_assert(Pacer::kBurst < tf::proto::kDefaultCreditBurst);
    Pacer p;
    for (int i = 0; i < int(Pacer::kBurst); ++i) {
        CHECK(p.delay(kStart) == Clock::duration::zero());
        p.sent(kStart);
    }
    const Clock::duration gap = p.delay(kStart);
    CHECK(gap >= duration<double>(1 / Pacer::kRate));
    CHECK(gap < duration<double>(1 / Pacer::kRate) + milliseconds(1));
    // Halfway through the gap, half of it is left.
    CHECK(p.delay(kStart + gap / 2) <= gap - gap / 2);
    CHECK(p.delay(kStart + gap / 2) > Clock::duration::zero());
    CHECK(p.delay(kStart + gap) == Clock::duration::zero());
}

TEST_CASE("pacer: an idle pacer saves up no more than its burst") {
    Pacer p;
    send_greedily(p, kStart, 100);
    const Clock::time_point later = kStart + std::chrono::hours(2);
    int at_once = 0;
    while (p.delay(later) == Clock::duration::zero()) {
        p.sent(later);
        ++at_once;
        REQUIRE(at_once <= 1000);
    }
    CHECK(at_once == int(Pacer::kBurst));
}

TEST_CASE("pacer: a time before the last one refills nothing") {
    Pacer p(10, 1);
    p.sent(kStart);
    const Clock::duration gap = p.delay(kStart);
    CHECK(gap > Clock::duration::zero());
    CHECK(p.delay(kStart - std::chrono::seconds(5)) >= gap);
    CHECK(p.delay(kStart + gap) == Clock::duration::zero());
}

TEST_CASE("pacer: never refused by the server's default credits, also when the network bunches") {
    // Each message arrives up to a second after it was sent (in order, as TCP delivers), either
    // at random or all held back for a second and then delivered together.
    // A pacer exactly as generous as the server is refused there: the margin is needed.
    for (const bool as_server : {false, true}) {
        for (const bool bunched : {false, true}) {
            CAPTURE(as_server);
            CAPTURE(bunched);
            Pacer p = as_server
                          ? Pacer(tf::proto::kDefaultCreditRate, tf::proto::kDefaultCreditBurst)
                          : Pacer();
            ServerBucket server(tf::proto::kDefaultCreditRate, tf::proto::kDefaultCreditBurst,
                                kStart);
            std::mt19937 rng(7);
            std::uniform_int_distribution<int> late_ms(0, 1000);
            Clock::time_point arrived = kStart;
            int refused = 0;
            const auto sent = send_greedily(p, kStart, 5000);
            for (std::size_t i = 0; i < sent.size(); ++i) {
                // Bunched: all sent within one second (from the start) arrive at its end.
                const Clock::time_point at =
                    bunched ? kStart + std::chrono::floor<std::chrono::seconds>(sent[i] - kStart) +
                                  std::chrono::seconds(1)
                            : sent[i] + milliseconds(late_ms(rng));
                arrived = std::max(arrived, at);
                refused += !server.take(arrived);
            }
            CHECK((refused == 0) == !as_server);
            if (as_server) continue;
            // And the pacer does not crawl either: 5000 messages at its rate, after its burst.
            const double seconds = duration<double>(sent.back() - sent.front()).count();
            CHECK(seconds == doctest::Approx((5000 - Pacer::kBurst) / Pacer::kRate).epsilon(0.01));
        }
    }
}

TEST_CASE("pacer: slow_down() brings a sender under a stricter server's credits") {
    // trunkfield-server --rate 3 --burst 5; the sender slows down at each refusal it is told of.
    Pacer p;
    ServerBucket server(3, 5, kStart);
    Clock::time_point now = kStart;
    int refused = 0, refused_late = 0, in_a_row = 0, most_in_a_row = 0;
    const int n = 2000;
    for (int i = 0; i < n; ++i) {
        now += p.delay(now);
        p.sent(now);
        if (server.take(now)) {
            in_a_row = 0;
            continue;
        }
        ++refused;
        refused_late += i >= n / 2;
        most_in_a_row = std::max(most_in_a_row, ++in_a_row);
        p.slow_down(now);
    }
    CHECK(refused > 0);
    CHECK(refused <= 3);  // 15 -> 7.5 -> 3.75 -> 1.875 a second at most
    CHECK(refused_late == 0);
    CHECK(most_in_a_row < 5);  // never flooding (more than --burst refusals in a row)
    CHECK(p.rate() < 3);
    CHECK(p.rate() >= Pacer::kMinRate);
}

TEST_CASE("pacer: slow_down() halves the rate down to kMinRate and empties the bucket") {
    Pacer p;
    p.slow_down(kStart);
    CHECK(p.rate() == doctest::Approx(Pacer::kRate / 2));
    // The next message waits for a whole credit, though the bucket was full.
    CHECK(p.delay(kStart) >= duration<double>(1 / p.rate()));
    for (int i = 0; i < 40; ++i) p.slow_down(kStart);
    CHECK(p.rate() == Pacer::kMinRate);
    // No burst any more: after a long pause, one message, then a wait.
    const Clock::time_point later = kStart + std::chrono::minutes(10);
    CHECK(p.delay(later) == Clock::duration::zero());
    p.sent(later);
    CHECK(p.delay(later) >= duration<double>(1 / Pacer::kMinRate));
}
