// The parts a Room is made of (server/room/room_parts.h), on their own: the limits read from
// the settings, the chat's rate limit and log, the offers that lapse with a turn, and the events
// kept for reconnection.
#include <doctest/doctest.h>

#include "server/room/room_parts.h"

#include <cstdlib>

namespace tf::server {

namespace {

proto::ChatEv line(const std::string& text, proto::ChatRoom room) {
    return proto::ChatEv{proto::PlayerRef{"p1", "ann"}, text, room};
}

}  // namespace

TEST_CASE("room parts: the limits come from the settings, the award defaulting to the grace") {
    Config cfg;
    cfg.grace_seconds = 2.5;
    cfg.award_seconds = -1;
    cfg.chat_lines = 3;
    cfg.history = 77;
    auto l = RoomLimits::from(cfg);
    CHECK(l.grace == std::chrono::milliseconds(2500));
    CHECK(l.award == l.grace);
    CHECK(l.chat_lines == 3);
    CHECK(l.history == 77);
    cfg.award_seconds = 0.25;
    CHECK(RoomLimits::from(cfg).award == std::chrono::milliseconds(250));
}

TEST_CASE("room parts: the stalling limit follows the time control, and correspondence its days") {
    using namespace std::chrono;
    Config cfg;
    cfg.correspondence_day_seconds = 100;
    CHECK(RoomLimits::from(cfg).stall == minutes(3));  // untimed
    // Three times a turn's share (the initial time over 40 turns, plus the increment)...
    CHECK(RoomLimits::from(cfg, proto::TimeControl{40 * 60'000, 10'000}).stall == seconds(210));
    // ...and at least a minute.
    CHECK(RoomLimits::from(cfg, proto::TimeControl{60'000, 0}).stall == minutes(1));
    cfg.stall_seconds = 7;
    CHECK(RoomLimits::from(cfg, proto::TimeControl{60'000, 0}).stall == seconds(7));
    const auto fischer = RoomLimits::from(cfg, proto::TimeControl{60'000, 0});
    proto::TimeControl days;
    days.days_per_move = 3;
    const auto slow = RoomLimits::from(cfg, days);
    CHECK(slow.start_timeout == seconds(600));  // two moves' time
    CHECK(slow.open_cancel == seconds(100 * RoomLimits::kOpenDays));
    CHECK(slow.open_away > hours(24 * 365));
    CHECK(fischer.start_timeout == RoomLimits::from(cfg).start_timeout);
}

TEST_CASE("room parts: the chat's rate limit counts each player's lines in a sliding window") {
    RoomChat chat(std::chrono::seconds(10), 2);
    const TimePoint t0 = SteadyClock::now();
    CHECK(chat.allow("ann", t0));
    CHECK(chat.allow("ann", t0 + std::chrono::seconds(1)));
    CHECK_FALSE(chat.allow("ann", t0 + std::chrono::seconds(2)));  // the third in 10 s
    CHECK(chat.allow("bob", t0 + std::chrono::seconds(2)));        // everyone has their own
    CHECK(chat.allow("ann", t0 + std::chrono::seconds(10)));       // the first has left
    CHECK_FALSE(chat.allow("ann", t0 + std::chrono::seconds(10)));
    chat.forget_senders();
    CHECK(chat.allow("ann", t0 + std::chrono::seconds(10)));
}

TEST_CASE("room parts: the chat log keeps the last lines; players do not see the spectators'") {
    RoomChat chat(std::chrono::seconds(10), 5);
    for (std::size_t i = 0; i < RoomChat::kLog + 3; ++i)
        chat.remember(line(std::to_string(i), proto::ChatRoom::Players));
    chat.remember(line("psst", proto::ChatRoom::Spectators));
    auto all = chat.shown(true);
    REQUIRE(all.size() == RoomChat::kLog);
    CHECK(all.front().text == "4");  // the first four went
    CHECK(all.back().text == "psst");
    auto players = chat.shown(false);
    CHECK(players.size() == RoomChat::kLog - 1);
    CHECK(players.back().text == std::to_string(RoomChat::kLog + 2));
    chat.clear_log();
    CHECK(chat.shown(true).empty());
}

TEST_CASE("room parts: a turn lets its side offer again; offers standing lapse") {
    RoomOffers o;
    o.draw = Side::Silver;
    o.draw_offered[0] = o.draw_offered[1] = true;
    o.takeback = Side::Bronze;
    o.takeback_asked[0] = o.takeback_asked[1] = true;
    o.rematch_code = "abc234";

    o.turn_made(Side::Bronze);  // silver's draw offer stands through bronze's turn
    CHECK(o.draw == Side::Silver);
    CHECK_FALSE(o.takeback);  // a takeback request lapses with any turn
    CHECK(o.draw_offered[0]);
    CHECK_FALSE(o.draw_offered[1]);
    CHECK(o.takeback_asked[0]);
    CHECK_FALSE(o.takeback_asked[1]);

    o.turn_made(Side::Silver);  // its own turn ends it
    CHECK_FALSE(o.draw);
    CHECK_FALSE(o.draw_offered[0]);
    CHECK(o.rematch_code == "abc234");  // not an offer of the game in play
    o.clear();
    CHECK_FALSE(o.rematch_code);
}

TEST_CASE("room parts: the history keeps the last events for catch-up, fewer once finished") {
    EventHistory h(4);
    CHECK_FALSE(h.reaches(0));  // nothing kept: nothing to catch up from
    for (int v = 1; v <= 6; ++v) h.add(v, std::make_shared<const std::string>(std::to_string(v)));
    REQUIRE(h.events().size() == 4);
    CHECK(h.events().front().first == 3);
    CHECK(*h.events().back().second == "6");
    CHECK(h.reaches(2));        // events 3.. are all here
    CHECK_FALSE(h.reaches(1));  // event 2 was dropped

    EventHistory copy(4);  // a replayed copy, with more than this one keeps
    for (int v = 1; v <= 6; ++v) copy.add(v, std::make_shared<const std::string>(""));
    EventHistory small(2);
    small.take(std::move(copy));
    CHECK(small.events().size() == 2);
    CHECK(small.events().front().first == 5);

    EventHistory long_game(100);
    for (int v = 1; v <= 20; ++v) long_game.add(v, std::make_shared<const std::string>(""));
    long_game.finished();
    CHECK(long_game.events().size() == EventHistory::kFinished);
    CHECK(long_game.events().back().first == 20);
    long_game.add(21, std::make_shared<const std::string>(""));  // a rematch offer, a chat line
    CHECK(long_game.events().size() == EventHistory::kFinished);
    long_game.clear();
    CHECK(long_game.empty());
}

TEST_CASE("room parts: a move sent again is found as the first change after its version") {
    EventHistory h(16);
    auto add = [&](std::int64_t v, proto::EventBody b) {
        h.add(v, std::make_shared<const std::string>(
                     proto::to_text(proto::Event{"abc234", v, std::move(b), std::nullopt})));
    };
    add(1, proto::JoinEv{Side::Bronze, {"p2", "bob"}});
    add(2, proto::SetupEv{Side::Silver, Setup{}});
    add(3, line("hello", proto::ChatRoom::Players));
    add(4, proto::SetupEv{Side::Bronze, Setup{}});
    auto same = [](const proto::EventBody&) { return true; };
    auto other = [](const proto::EventBody&) { return false; };
    CHECK(h.applied_after(Side::Silver, 1, same) == 2);
    CHECK_FALSE(h.applied_after(Side::Bronze, 1, same));   // the first change after 1: silver's
    CHECK_FALSE(h.applied_after(Side::Silver, 1, other));  // silver's, but another setup
    CHECK(h.applied_after(Side::Bronze, 2, same) == 4);    // a chat line changes nothing
    CHECK_FALSE(h.applied_after(Side::Bronze, 4, same));   // nothing after it
    EventHistory tail(2);  // the journal's tail only (after a takeover): 3 and 4
    for (const auto& [v, msg] : h.events()) tail.add(v, msg);
    CHECK_FALSE(tail.applied_after(Side::Silver, 1, same));  // reaches back to 2 no more
    CHECK(tail.applied_after(Side::Bronze, 2, same) == 4);
}

}  // namespace tf::server

namespace tf::server {

namespace {

struct Quiet : Participant {
    void deliver(Msg) override {}
};

std::string text_of(const RoomOps::Out& o) {
    return o.msg ? *o.msg : std::string();
}

}  // namespace

TEST_CASE(
    "room parts: a failed commit's fate is told once per connection, to each as it concerns") {
    auto ann = std::make_shared<Quiet>(), bob = std::make_shared<Quiet>(),
         eve = std::make_shared<Quiet>();
    Suspension s;
    s.saved_version = 7;
    auto msg = std::make_shared<const std::string>("{}");
    // Ann's turn was the failed operation's (an ack among its messages), and she watches too.
    const std::vector<RoomOps::Out> held = {{ann, msg, false, std::optional<std::string>("t1")},
                                            {bob, msg, false}};
    const std::vector<RoomOps::Out> watching = {
        {ann, nullptr, false}, {bob, nullptr, false}, {eve, nullptr, true}};
    SUBCASE("not saved: the requester's store_failed carries its ref and the saved version") {
        auto out = s.notices(false, held, watching, "abc234");
        REQUIRE(out.size() == 3);
        CHECK(out[0].to.lock() == ann);
        CHECK(text_of(out[0]).find("\"store_failed\"") != std::string::npos);
        CHECK(text_of(out[0]).find("\"t1\"") != std::string::npos);
        CHECK(text_of(out[0]).find("\"version\":7") != std::string::npos);
        CHECK(out[1].to.lock() == bob);
        CHECK(text_of(out[1]).find("\"t1\"") == std::string::npos);
        CHECK(out[2].to.lock() == eve);
        CHECK(out[2].crowd);
    }
    SUBCASE("unknown: the requester is told in_doubt, without a version") {
        auto out = s.notices(std::nullopt, held, watching, "abc234");
        REQUIRE(out.size() == 3);
        CHECK(text_of(out[0]).find("\"in_doubt\"") != std::string::npos);
        CHECK(text_of(out[1]).find("\"store_failed\"") != std::string::npos);
        CHECK(text_of(out[1]).find("\"version\"") == std::string::npos);
    }
    SUBCASE("saved: no error for the request; everyone learns the game is paused") {
        auto out = s.notices(true, held, watching, "abc234");
        REQUIRE(out.size() == 3);
        for (const auto& o : out) CHECK(text_of(o).find("\"ref\"") == std::string::npos);
        CHECK(text_of(out[0]).find("version 7") != std::string::npos);
    }
}

}  // namespace tf::server

namespace tf::server {

TEST_CASE("room parts: the computer takes a person's moment over a move, less when short of time") {
    boost::asio::io_context io;
    RoomExecutor ex = boost::asio::make_strand(io);
    RoomBot bot(ex, 3);  // its seat is the core's to say (room_core_test.cpp)
    using std::chrono::milliseconds;
    Game g{Variant{}};
    CHECK(bot.moment(g, std::nullopt, 1.0) == milliseconds(800));  // a setup
    CHECK(bot.moment(g, std::nullopt, 0.0) == SteadyClock::duration::zero());
    // The search: the built-in engine over the engine protocol, told the game's history.
    engine::GameLines lines{Variant{}, {}, {}};
    const engine::GoLimits untimed;
    auto setup = RoomBot::search(lines, g, 1, 1, untimed);
    REQUIRE(std::holds_alternative<Setup>(setup));
    REQUIRE_FALSE(g.apply_setup(Side::Silver, std::get<Setup>(setup)));
    lines.setups[0] = std::get<Setup>(setup);
    auto bronze = RoomBot::search(lines, g, 1, 2, untimed);
    REQUIRE(std::holds_alternative<Setup>(bronze));
    REQUIRE_FALSE(g.apply_setup(Side::Bronze, std::get<Setup>(bronze)));
    lines.setups[1] = std::get<Setup>(bronze);
    CHECK(bot.moment(g, std::nullopt, 1.0) == milliseconds(650));             // a turn at level 3
    CHECK(bot.moment(g, std::chrono::seconds(6), 1.0) == milliseconds(100));  // a sixtieth
    auto turn = RoomBot::search(lines, g, 1, 3, untimed);
    REQUIRE(std::holds_alternative<Turn>(turn));
    CHECK_FALSE(g.apply_turn(std::get<Turn>(turn)));
    lines.turns.push_back(std::get<Turn>(turn));
    engine::GoLimits clocks;  // with clocks: the same path, the answer checked by the rules
    clocks.time[0] = clocks.time[1] = 60000;
    clocks.inc[0] = clocks.inc[1] = 1000;
    auto second = RoomBot::search(lines, g, 2, 4, clocks);
    REQUIRE(std::holds_alternative<Turn>(second));
    CHECK_FALSE(Game(g).apply_turn(std::get<Turn>(second)));
    // A resigned game: the engine is not told (no line says so) and answers, but its answer is
    // checked against the game and refused.
    g.resign(Side::Silver);
    CHECK(std::holds_alternative<std::string>(RoomBot::search(lines, g, 1, 5, untimed)));
}

}  // namespace tf::server

namespace tf::server {

TEST_CASE("room parts: seat ratings show the book's, and the changes once the store applied them") {
    RatingBook book;
    SeatRatings r;
    const std::optional<Player> players[2] = {Player{"ann", "Ann", true},
                                              Player{"bob", "Bob", true}};
    r.note(Side::Silver, players[0], book);
    CHECK_FALSE(r.seat[0]);  // an unrated game shows none
    r.category = "blitz";
    book.set("ann", StoredRating{"blitz", 1620, 80, 0.06, 30, 1000});
    r.note(Side::Silver, players[0], book);
    r.note(Side::Bronze, players[1], book);
    REQUIRE(r.seat[0]);
    CHECK(r.seat[0]->rating == 1620);
    REQUIRE(r.seat[1]);
    CHECK(r.seat[1]->rating == 1500);  // new to the category
    RateGame::Outcome o;
    o.before[0] = StoredRating{"blitz", 1620, 80, 0.06, 30, 1000};
    o.after[0] = StoredRating{"blitz", 1610, 78, 0.06, 31, 2000};
    o.before[1] = StoredRating{"blitz"};
    o.after[1] = StoredRating{"blitz", 1700, 300, 0.09, 1, 2000};
    const auto& ev = r.applied(o, players, book, 2000);
    CHECK(ev.category == "blitz");
    REQUIRE(ev.change[0]);
    CHECK(ev.change[0]->before == 1620);
    CHECK(ev.change[0]->after.rating == 1610);
    CHECK(book.get("bob", "blitz")->rating == 1700);  // the book learnt them
    CHECK(r.changes);
}

TEST_CASE("room parts: a rated game's end is rated once it began and has a result") {
    SeatRatings r;
    const std::optional<Player> both[2] = {Player{"ann", "Ann", true}, Player{"bob", "Bob", true}};
    proto::Result won;
    won.winner = proto::Winner::Bronze;
    CHECK_FALSE(r.game(won, true, both, 5));  // no category: a casual game
    r.category = "blitz";
    auto g = r.game(won, true, both, 5);
    REQUIRE(g);
    CHECK(g->category == "blitz");
    CHECK(g->player[0] == "ann");
    CHECK(g->player[1] == "bob");
    CHECK(g->silver_score == 0);
    CHECK(g->at_ms == 5);
    CHECK((g->rate == &rate_game));
    proto::Result drawn;
    drawn.winner = proto::Winner::Draw;
    CHECK(r.game(drawn, true, both, 5)->silver_score == 0.5);
    won.winner = proto::Winner::Silver;
    CHECK(r.game(won, true, both, 5)->silver_score == 1);
    CHECK_FALSE(r.game(won, false, both, 5));             // no turn was played
    CHECK_FALSE(r.game(proto::Result{}, true, both, 5));  // aborted: no result
    const std::optional<Player> one[2] = {Player{"ann", "Ann", true}, std::nullopt};
    CHECK_FALSE(r.game(won, true, one, 5));
}

}  // namespace tf::server

namespace tf::server {

namespace {

// A grace period of 10 s, then an award period of 20 s.
RoomLimits grace_10_award_20() {
    Config cfg;
    cfg.grace_seconds = 10;
    cfg.award_seconds = 20;
    return RoomLimits::from(cfg);
}

}  // namespace

TEST_CASE("room parts: the next deadline is the earliest that can act in the room's state") {
    const auto l = grace_10_award_20();
    const TimePoint t0 = SteadyClock::now();
    using std::chrono::seconds;
    RoomDeadlines d;
    RoomDeadlines::View v;
    v.status = proto::GameStatus::Playing;
    CHECK_FALSE(d.next(l, v));
    d.remove = t0 + seconds(100);
    v.spectators = t0 + seconds(90);
    CHECK(d.next(l, v) == t0 + seconds(90));
    d.stall = t0 + seconds(80);
    v.flag = t0 + seconds(70);
    CHECK(d.next(l, v) == t0 + seconds(70));
    // Bronze away since t0: awarded at t0 + 30 s, once a turn was played, while silver is
    // there (or, both away, when the game is untimed: then it is aborted).
    d.away_since[idx(Side::Bronze)] = t0;
    CHECK(d.award_at(Side::Bronze, l) == t0 + seconds(30));
    CHECK(d.next(l, v) == t0 + seconds(70));  // not started: the no-start limit acts instead
    v.started = true;
    v.timed = true;
    CHECK(d.next(l, v) == t0 + seconds(70));  // silver is away too: the clock decides
    v.present[idx(Side::Silver)] = true;
    CHECK(d.next(l, v) == t0 + seconds(30));
    // Over: only what a finished game waits for (its removal, the spectators' count).
    v.status = proto::GameStatus::Over;
    CHECK(d.next(l, v) == t0 + seconds(90));
    v.status = proto::GameStatus::Suspended;
    v.retry = t0 + seconds(1);
    CHECK(d.next(l, v) == t0 + seconds(1));
}

TEST_CASE("room parts: a seat gone starts its absence with its moments, and one back ends it") {
    const auto l = grace_10_award_20();
    const TimePoint t0 = SteadyClock::now();
    using std::chrono::seconds;
    RoomDeadlines d;
    bool here[2] = {true, true};
    CHECK(d.presence(here, t0, l).empty());
    here[idx(Side::Bronze)] = false;
    auto evs = d.presence(here, t0, l);
    REQUIRE(evs.size() == 1);
    auto* left = std::get_if<proto::PlayerLeftEv>(&evs[0]);
    REQUIRE(left);
    CHECK(left->side == Side::Bronze);
    // Claimable after the grace, awarded after the award period too (wall-clock ms: each
    // conversion reads the system clock, a millisecond apart at most).
    CHECK(std::abs(left->claim_at - epoch_ms(t0, t0) - 10'000) <= 2);
    CHECK(std::abs(left->award_at - left->claim_at - 20'000) <= 2);
    CHECK(d.away_since[idx(Side::Bronze)] == t0);
    CHECK(d.presence(here, t0 + seconds(5), l).empty());  // still away: nothing new
    here[idx(Side::Bronze)] = true;
    here[idx(Side::Silver)] = false;
    evs = d.presence(here, t0 + seconds(6), l);
    REQUIRE(evs.size() == 2);  // silver's first
    CHECK(std::get<proto::PlayerLeftEv>(evs[0]).side == Side::Silver);
    CHECK(std::get<proto::PlayerBackEv>(evs[1]).side == Side::Bronze);
    CHECK_FALSE(d.away_since[idx(Side::Bronze)]);
}

TEST_CASE("room parts: an open game's creator away, and back to a game taken off the lobby") {
    const TimePoint t0 = SteadyClock::now();
    RoomDeadlines d;
    CHECK_FALSE(d.creator_presence(true, t0));
    CHECK_FALSE(d.creator_presence(false, t0));
    CHECK(d.creator_away == t0);
    CHECK_FALSE(d.creator_presence(true, t0));  // back before it was delisted
    CHECK_FALSE(d.creator_away);
    d.creator_presence(false, t0);
    d.delisted = true;
    CHECK(d.creator_presence(true, t0));  // listed again
    CHECK_FALSE(d.delisted);
}

TEST_CASE("room parts: a suspension charges the mover up to the failure, then stops the clock") {
    using std::chrono::milliseconds;
    const TimePoint t0 = SteadyClock::now();
    std::optional<Clock> clock;
    clock.emplace(proto::TimeControl{60'000, 0});
    clock->start(Side::Bronze, t0);
    Suspension f;
    f.last_clock_at_ms = 1'000'000;  // the saved reading (restored at t0 by the replay)
    f.suspended_ms = 1'004'000;      // the failure, 4 s later
    f.pause(clock, t0 + milliseconds(100));
    CHECK(f.resume_running == Side::Bronze);
    CHECK_FALSE(clock->running());
    CHECK(clock->left(Side::Bronze, t0) == milliseconds(60'000 - 4'000 - 100));
    // Resumed much later: the time in between was nobody's.
    f.resume(clock, true, t0 + std::chrono::seconds(50));
    CHECK(clock->running() == Side::Bronze);
    CHECK_FALSE(f.resume_running);
    CHECK(clock->left(Side::Bronze, t0 + std::chrono::seconds(50)) ==
          milliseconds(60'000 - 4'000 - 100));
    // A game that ended meanwhile (or an untimed one) starts nobody's time.
    Suspension g;
    std::optional<Clock> none;
    g.pause(none, t0);
    CHECK_FALSE(g.resume_running);
    clock->stop(t0 + std::chrono::seconds(51));
    g.resume_running = Side::Silver;
    g.resume(clock, false, t0);
    CHECK_FALSE(clock->running());
}

}  // namespace tf::server
