// Lag compensation's value types (server/room/lag.h) and the clock's credit, on made-up instants:
// what a turn is charged for a given lag, elapsed time and quota, and how much a client that
// lies about its lag can gain.
#include <doctest/doctest.h>

#include "server/room/clock.h"
#include "server/room/lag.h"

namespace tf::server {
namespace {

using std::chrono::milliseconds;
using D = SteadyClock::duration;
constexpr proto::TimeControl kBlitz{180000, 2000};  // 3+2: the full figures
constexpr proto::TimeControl kBullet{30000, 0};     // 30 s: a quarter

TEST_CASE("lag estimate: the median of the last five round trips") {
    LagEstimate e;
    CHECK(!e.value());
    e.add(milliseconds(300));
    CHECK(*e.value() == milliseconds(300));
    e.add(milliseconds(100));
    CHECK(*e.value() == milliseconds(200));  // two: their mean
    for (int ms : {310, 290, 2000}) e.add(milliseconds(ms));
    CHECK(*e.value() == milliseconds(300));  // one spike does not move it
    for (int ms : {50, 50, 50}) e.add(milliseconds(ms));
    CHECK(*e.value() == milliseconds(50));  // the oldest samples are forgotten
}

TEST_CASE("lag quota: figures scale with the time control") {
    LagQuota q(kBlitz);
    CHECK(q.start() == milliseconds(2000));
    CHECK(q.gain() == milliseconds(1000));
    CHECK(q.max() == milliseconds(5000));
    CHECK(q.per_turn() == milliseconds(3000));
    LagQuota b(kBullet);
    CHECK(b.start() == milliseconds(500));
    CHECK(b.gain() == milliseconds(250));
    CHECK(LagQuota({90000, 0}).start() == milliseconds(1000));  // half of three minutes
}

TEST_CASE("lag quota: an honest lag is credited whole, never more than the turn took") {
    LagQuota q(kBlitz);
    for (int i = 0; i < 40; ++i) {
        CHECK(q.credit(Side::Silver, milliseconds(300), milliseconds(320)) == milliseconds(300));
        CHECK(q.quota(Side::Silver) <= q.max());
    }
    CHECK(q.quota(Side::Silver) == q.max());
    CHECK(q.credit(Side::Silver, milliseconds(300), milliseconds(120)) == milliseconds(120));
    CHECK(q.credit(Side::Bronze, D::zero(), milliseconds(500)) == D::zero());
    CHECK(q.quota(Side::Bronze) == milliseconds(3000));  // each side has its own
}

TEST_CASE("lag quota: a liar gains at most the quota") {
    // A client that claims 60 s of lag on each of 40 turns that took 10 s each: credited the
    // start, then the per-turn gain, never more.
    LagQuota q(kBlitz);
    D total = D::zero();
    for (int i = 0; i < 40; ++i)
        total += q.credit(Side::Bronze, milliseconds(60000), milliseconds(10000));
    CHECK(total == q.start() + 39 * q.gain());
    LagQuota first(kBlitz);
    CHECK(first.credit(Side::Bronze, milliseconds(60000), milliseconds(10000)) == q.start());
    // The per-turn cap: a full quota still gives at most 3 s to one turn.
    LagQuota full(kBlitz);
    for (int i = 0; i < 5; ++i) full.credit(Side::Silver, D::zero(), D::zero());
    CHECK(full.quota(Side::Silver) == milliseconds(5000));
    CHECK(full.credit(Side::Silver, milliseconds(60000), milliseconds(60000)) ==
          milliseconds(3000));
}

TEST_CASE("clock: a credited turn is charged its elapsed time less the credit") {
    Clock c(kBlitz);
    const auto t0 = SteadyClock::now();
    c.start(Side::Bronze, t0);
    CHECK(c.elapsed(t0 + milliseconds(450)) == milliseconds(450));
    c.press(t0 + milliseconds(450), milliseconds(300));
    auto r = c.reading(t0 + milliseconds(450));
    CHECK(r.bronze_ms == 180000 - 150 + 2000);
    // A credit over the elapsed time gives nothing back beyond it.
    c.press(t0 + milliseconds(550), milliseconds(5000));
    CHECK(c.reading(t0 + milliseconds(550)).silver_ms == 180000 + 2000);
    CHECK(c.elapsed(t0 + milliseconds(550)) == D::zero());
}

TEST_CASE("clock: berserk takes half the initial time and the increment of one side") {
    Clock c(kBlitz);  // 3 min + 2 s
    const auto t0 = SteadyClock::now();
    c.berserk(Side::Bronze);
    CHECK(c.reading(t0).bronze_ms == 90000);
    CHECK(c.reading(t0).silver_ms == 180000);
    c.start(Side::Silver, t0);
    c.press(t0 + milliseconds(1000));  // silver: 1 s used, 2 s added
    CHECK(c.reading(t0 + milliseconds(1000)).silver_ms == 181000);
    c.press(t0 + milliseconds(3000));  // bronze: 2 s used, nothing added
    CHECK(c.reading(t0 + milliseconds(3000)).bronze_ms == 88000);
    // While its time runs: deducted from what is left then.
    Clock d(kBlitz);
    d.start(Side::Silver, t0);
    d.berserk(Side::Silver);
    CHECK(d.reading(t0 + milliseconds(10000)).silver_ms == 80000);
    // A restored reading keeps the side without increment when told so.
    Clock e(kBlitz);
    e.restore(90000, 180000, Side::Silver, t0);
    e.no_increment(Side::Silver);
    e.press(t0 + milliseconds(1000));
    CHECK(e.reading(t0 + milliseconds(1000)).silver_ms == 89000);
}

TEST_CASE("clock: a correspondence clock gives each move the whole time again") {
    const auto day = std::chrono::seconds(10);
    Clock c(proto::TimeControl{0, 0, 2}, day);
    const auto t0 = SteadyClock::now();
    CHECK(c.reading(t0).silver_ms == 20000);
    c.start(Side::Bronze, t0);
    CHECK(*c.deadline() == t0 + 2 * day);
    c.press(t0 + milliseconds(15000));  // bronze used 15 s of its 20
    auto r = c.reading(t0 + milliseconds(15000));
    CHECK(r.bronze_ms == 20000);
    CHECK(r.silver_ms == 20000);
    CHECK(r.running == Side::Silver);
    CHECK(*c.deadline() == t0 + milliseconds(15000) + 2 * day);
    CHECK(!c.expired(t0 + milliseconds(34999)));
    CHECK(c.expired(t0 + milliseconds(35000)));
}

TEST_CASE("clock: a vacation stops a correspondence clock; a turn made meanwhile refills it") {
    const auto day = std::chrono::seconds(10);
    Clock c(proto::TimeControl{0, 0, 1}, day);
    const auto t0 = SteadyClock::now();
    c.start(Side::Bronze, t0);
    c.stop(t0 + milliseconds(4000));  // bronze goes on vacation with 6 s left
    CHECK(!c.deadline());
    CHECK(!c.expired(t0 + std::chrono::hours(24)));
    CHECK(c.reading(t0 + std::chrono::hours(24)).bronze_ms == 6000);
    c.pass();  // bronze moves on vacation: the whole day again, nobody's time runs
    CHECK(c.reading(t0).bronze_ms == 10000);
    CHECK(c.reading(t0).silver_ms == 10000);
    CHECK(!c.running());
    c.start(Side::Silver, t0 + milliseconds(5000));
    CHECK(*c.deadline() == t0 + milliseconds(15000));
}

}  // namespace
}  // namespace tf::server
