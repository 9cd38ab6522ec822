// The game as its journal records it (server/room/game_record.h), on its own: each event's change
// in one place, a replay of a journal that agrees with the record that wrote it, the checks a
// replay makes, takebacks, and a finished game as a summary and back.
#include <doctest/doctest.h>

#include "common/bot.h"
#include "common/json.h"
#include "server/room/game_record.h"
#include "server/store/record_codec.h"

namespace tf::server {

namespace {

// Writes a game as a room does: each event applied to the record, counted, journaled.
struct Writer {
    GameRecord rec{Variant{}, false};
    std::vector<JournalRow> journal;
    StoredGame row;

    Writer() { rec.seats[0] = Player{"ann", "Ann", false}; }

    void event(proto::EventBody body) {
        REQUIRE(rec.apply(body) == "");
        emit(std::move(body));
    }
    void emit(proto::EventBody body) {
        rec.count(body);
        proto::Event ev{"abc234", rec.version, std::move(body), std::nullopt};
        journal.push_back(journal_row(ev, proto::to_text(ev), 0));
    }
    void setup() {
        const Side s = rec.game->to_move();
        auto su = bot_setup(*rec.game, BotOptions{1, 7});
        REQUIRE(su);
        Decision d = rec.setup(s, *su, rec.version);
        REQUIRE(d.event);
        emit(std::move(*d.event));
    }
    void turn(std::uint64_t seed = 7) {
        const Side s = rec.game->to_move();
        auto t = bot_turn(*rec.game, BotOptions{1, seed});
        REQUIRE(t);
        Decision d = rec.turn(s, *t, rec.version);
        REQUIRE(d.event);
        emit(std::move(*d.event));
    }
    // The row a room would store now.
    const StoredGame& stored() {
        row = rec.row("abc234", RoomParams{});
        return row;
    }
    void start() {
        event(proto::JoinEv{Side::Bronze, proto::PlayerRef{"bob", "Bob"}});
        setup();
        setup();
    }
};

GameRecord fresh() {
    GameRecord r(Variant{}, false);
    r.seats[0] = Player{"ann", "Ann", false};
    return r;
}

bool replays(GameRecord& r, const Writer& w, std::string& error, int* events = nullptr) {
    int n = 0;
    bool ok = r.replay(
        w.row, w.journal, [&](const proto::Event&, const JournalRow&) { ++n; }, error);
    if (events) *events = n;
    return ok;
}

}  // namespace

TEST_CASE("game record: a replayed journal gives the record that wrote it") {
    Writer w;
    w.start();
    for (int i = 0; i < 6; ++i) w.turn(std::uint64_t(i + 1));
    w.event(proto::DrawOfferEv{w.rec.game->to_move()});
    w.event(proto::PreferencesEv{Side::Bronze, proto::SeatPrefs{false, false}});
    w.stored();

    GameRecord r = fresh();
    std::string error;
    int events = 0;
    REQUIRE_MESSAGE(replays(r, w, error, &events), error);
    CHECK(events == int(w.journal.size()));
    CHECK(r.version == w.rec.version);
    CHECK(r.state_version == w.rec.state_version);
    CHECK(r.status == proto::GameStatus::Playing);
    CHECK(r.turns == w.rec.turns);
    CHECK(state_to_json(*r.game) == state_to_json(*w.rec.game));
    CHECK(r.offers.draw == w.rec.offers.draw);
    CHECK(r.prefs[idx(Side::Bronze)] == proto::SeatPrefs{false, false});
    CHECK(r.seats[1]->id == "bob");
    CHECK(r.row("abc234", RoomParams{}).turns == 6);
}

TEST_CASE("game record: a stored row gives back the params that wrote it") {
    RoomParams params;
    params.time_control = proto::TimeControl{180'000, 2'000};
    params.is_public = false;
    params.creator_side = Side::Bronze;
    params.bot_level = 3;
    params.rated = true;
    params.creator_address = std::string("203.0.113.5");
    params.invitee_id = std::string("p2");
    params.invitee_name = std::string("Bea");
    GameRecord rec(params.variant, true);
    rec.seats[1] = Player{"p1", "Ann", true};
    std::string error;
    auto back = RoomParams::of_row(rec.row("abc234", params), error);
    REQUIRE(back);
    CHECK(error == "");
    CHECK(back->time_control == params.time_control);
    CHECK(back->is_public == false);
    CHECK(back->creator_side == Side::Bronze);
    CHECK(back->bot_level == 3);
    CHECK(back->rated);
    CHECK(back->creator_address == "203.0.113.5");  // kept while the game is open
    CHECK(back->invitee_id == "p2");
    CHECK(back->invitee_name == "Bea");
    StoredGame bad = rec.row("abc234", params);
    bad.creator_side = "gold";
    CHECK_FALSE(RoomParams::of_row(bad, error));
    CHECK(error == "stored creator side: gold");
    bad = rec.row("abc234", params);
    bad.time_control = "{\"days_per_move\":4}";  // not one of kCorrespondenceDays
    CHECK_FALSE(RoomParams::of_row(bad, error));
}

TEST_CASE("game record: a journal that does not replay is refused and says where") {
    Writer w;
    w.start();
    w.turn();
    SUBCASE("a gap in the versions") {
        w.journal.erase(w.journal.begin() + 1);
        w.stored();
        GameRecord r = fresh();
        std::string error;
        CHECK_FALSE(replays(r, w, error));
        CHECK(error.find("follows version 1") != std::string::npos);
    }
    SUBCASE("a row that claims more than the journal holds") {
        w.stored();
        w.row.version += 1;
        GameRecord r = fresh();
        std::string error;
        CHECK_FALSE(replays(r, w, error));
        CHECK(error.find("the journal ends at version") != std::string::npos);
    }
    SUBCASE("a turn out of turn") {
        w.emit(proto::TurnEv{w.rec.game->to_move() == Side::Silver ? Side::Bronze : Side::Silver,
                             w.rec.turns.back(),
                             {}});
        w.stored();
        GameRecord r = fresh();
        std::string error;
        CHECK_FALSE(replays(r, w, error));
        CHECK(error.find("out of turn") != std::string::npos);
    }
    SUBCASE("a claim against a player who was not stalling") {
        w.emit(proto::StallClaimEv{Side::Silver, true});
        w.stored();
        GameRecord r = fresh();
        std::string error;
        CHECK_FALSE(replays(r, w, error));
        CHECK(error.find("not stalling") != std::string::npos);
    }
}

TEST_CASE("game record: offers stand until answered, lapse with turns and end with the game") {
    Writer w;
    w.start();
    w.turn();
    const Side mover = w.rec.game->to_move();
    w.event(proto::DrawOfferEv{mover});
    w.event(proto::TakebackOfferEv{mover});
    CHECK(w.rec.offers.draw == mover);
    CHECK(w.rec.offers.takeback == mover);
    CHECK(w.rec.offers.draw_offered[idx(mover)]);
    w.turn();  // the mover's turn: its draw offer and any takeback request lapse
    CHECK_FALSE(w.rec.offers.draw);
    CHECK_FALSE(w.rec.offers.takeback);
    CHECK_FALSE(w.rec.offers.draw_offered[idx(mover)]);
    w.event(proto::DrawOfferEv{w.rec.game->to_move()});
    w.event(proto::StallingEv{w.rec.game->to_move()});
    w.event(proto::ResignEv{w.rec.game->to_move()});  // an ending: nothing stands past it
    CHECK_FALSE(w.rec.offers.draw);
    CHECK_FALSE(w.rec.stalling);
    w.event(proto::GameOverEv{w.rec.result()});
    CHECK(w.rec.status == proto::GameStatus::Over);
    w.event(proto::RematchOfferEv{Side::Silver});
    w.event(proto::RematchEv{"def567"});
    CHECK_FALSE(w.rec.offers.rematch);
    CHECK(w.rec.offers.rematch_code == "def567");

    // And so does a replay of it.
    w.stored();
    GameRecord r = fresh();
    std::string error;
    REQUIRE_MESSAGE(replays(r, w, error), error);
    CHECK_FALSE(r.offers.draw);
    CHECK(r.offers.rematch_code == "def567");
    CHECK(r.result().winner == w.rec.result().winner);
}

TEST_CASE(
    "game record: a move is refused out of turn, at a version off the game's, in the wrong "
    "phase and by the rules, changing nothing") {
    using proto::Err;
    Writer w;
    w.event(proto::JoinEv{Side::Bronze, proto::PlayerRef{"bob", "Bob"}});
    auto su = bot_setup(*w.rec.game, BotOptions{1, 7});
    REQUIRE(su);
    CHECK(w.rec.setup(Side::Bronze, *su).refused == Err::NotYourTurn);
    CHECK(w.rec.setup(Side::Silver, *su, w.rec.version + 1).refused == Err::StaleVersion);
    CHECK(w.rec.turn(Side::Silver, Turn{}).refused == Err::WrongPhase);
    Setup bad = *su;
    bad.elephants.pop_back();
    Decision no = w.rec.setup(Side::Silver, bad);
    CHECK(no.refused == Err::IllegalSetup);
    CHECK(no.rule.has_value());
    CHECK_FALSE(no.event);
    CHECK_FALSE(w.rec.setups[0]);
    CHECK(w.rec.game->phase() == Phase::SetupSilver);
    w.setup();
    const std::int64_t before = w.rec.version;
    w.setup();
    // Silver's setup was at `before - 1`: the game moved on (bronze's setup changed it).
    CHECK(w.rec.setup(Side::Silver, *su, before - 1).refused == Err::StaleVersion);
    CHECK(w.rec.setup(Side::Silver, *su).refused == Err::WrongPhase);
    auto t = bot_turn(*w.rec.game, BotOptions{1, 3});
    REQUIRE(t);
    Decision ok = w.rec.turn(Side::Silver, *t, w.rec.version);
    REQUIRE(ok.event);
    const auto* ev = std::get_if<proto::TurnEv>(&*ok.event);
    REQUIRE(ev);
    CHECK(ev->side == Side::Silver);
    CHECK(w.rec.turns.size() == 1);
    CHECK(w.rec.turn(Side::Silver, *t).refused == Err::NotYourTurn);
}

TEST_CASE("game record: a takeback removes the requester's last turn and what followed") {
    Writer w;
    w.start();
    CHECK(w.rec.takeback_turns(Side::Silver) == 0);  // no turn yet
    w.turn(1);
    CHECK(w.rec.takeback_turns(Side::Silver) == 0);  // the game's first turn stays
    const Game after_one = *w.rec.game;
    w.turn(2);
    w.turn(3);
    CHECK(w.rec.takeback_turns(Side::Bronze) == 2);  // bronze's turn and silver's after it
    CHECK(w.rec.apply(proto::TakebackEv{Side::Bronze, 1}) != "");  // not the turns it removes
    w.event(proto::TakebackEv{Side::Bronze, 2});
    CHECK(w.rec.turns.size() == 1);
    CHECK(state_to_json(*w.rec.game) == state_to_json(after_one));
    CHECK(w.rec.game->to_move() == Side::Bronze);
    w.stored();
    GameRecord r = fresh();
    std::string error;
    REQUIRE_MESSAGE(replays(r, w, error), error);
    CHECK(state_to_json(*r.game) == state_to_json(after_one));
}

TEST_CASE("game record: a finished game as a summary answers without its state, then expands") {
    Writer w;
    w.start();
    w.turn();
    w.turn();
    w.event(proto::ResignEv{Side::Silver});
    w.event(proto::GameOverEv{w.rec.result()});
    const auto before = w.stored();
    const auto winner = w.rec.result().winner;

    w.rec.compact();
    CHECK_FALSE(w.rec.game);
    CHECK(w.rec.turns.empty());
    CHECK(w.rec.started());
    CHECK(w.rec.result().winner == winner);
    CHECK(w.rec.row("abc234", RoomParams{}).turns == 2);

    GameRecord full = fresh();
    std::string error;
    REQUIRE_MESSAGE(replays(full, w, error), error);
    w.rec.expand(std::move(full));
    CHECK_FALSE(w.rec.summary.active);
    REQUIRE(w.rec.game);
    CHECK(w.rec.turns.size() == 2);
    CHECK(w.rec.result().winner == winner);
    CHECK(w.rec.row("abc234", RoomParams{}).version == before.version);
}

TEST_CASE("game record: draw offers, as lichess: once per own turn, an offer back accepts") {
    Writer w;
    w.start();
    w.turn();
    const Side me = w.rec.game->to_move(), them = ~me;
    auto d = w.rec.draw(me, OfferAct::Accept);
    CHECK(d.refused == proto::Err::NoDrawOffer);
    d = w.rec.draw(me, OfferAct::Offer);
    REQUIRE(d.event);
    w.event(*d.event);
    CHECK(w.rec.draw(me, OfferAct::Offer).refused == proto::Err::DrawPending);
    w.event(*w.rec.draw(them, OfferAct::Decline).event);
    CHECK_FALSE(w.rec.offers.draw);
    // Declined, the offerer may not offer again before its next turn.
    CHECK(w.rec.draw(me, OfferAct::Offer).refused == proto::Err::DrawPending);
    w.event(*w.rec.draw(them, OfferAct::Offer).event);
    d = w.rec.draw(me, OfferAct::Offer);  // an offer while the opponent's stands accepts it
    REQUIRE(d.event);
    CHECK(std::holds_alternative<proto::DrawAcceptEv>(*d.event));
}

TEST_CASE("game record: takebacks follow each seat's preferences; the computer accepts at once") {
    Writer w;
    w.start();
    w.turn(1);
    w.turn(2);
    const Side me = w.rec.game->to_move() == Side::Silver ? Side::Bronze : Side::Silver;
    CHECK(w.rec.takeback(me, OfferAct::Accept, false).refused == proto::Err::NoTakebackOffer);
    auto d = w.rec.takeback(me, OfferAct::Offer, true);
    REQUIRE(d.event);
    CHECK(*d.event == proto::EventBody{proto::TakebackEv{me, 1}});
    w.event(*w.rec.takeback(me, OfferAct::Offer, false).event);
    CHECK(w.rec.takeback(me, OfferAct::Offer, false).refused == proto::Err::TakebackPending);
    d = w.rec.takeback(~me, OfferAct::Accept, false);
    REQUIRE(d.event);
    CHECK(*d.event == proto::EventBody{proto::TakebackEv{me, 1}});
    // A seat that turns takebacks off withdraws the standing request and refuses new ones.
    d = w.rec.preferences(~me, proto::Preferences{"abc234", false, std::nullopt});
    REQUIRE(d.event);
    w.event(*d.event);
    CHECK_FALSE(w.rec.offers.takeback);
    CHECK(w.rec.takeback(~me, OfferAct::Offer, false).refused == proto::Err::TakebackOff);
    CHECK_FALSE(w.rec.preferences(~me, proto::Preferences{"abc234", false, std::nullopt}).event);
    CHECK_FALSE(w.rec.preferences(~me, proto::Preferences{"abc234", false, std::nullopt}).refused);
    d = w.rec.preferences(~me, proto::Preferences{"abc234", std::nullopt, false});
    w.event(*d.event);
    CHECK(w.rec.give_time(me).refused == proto::Err::MoreTimeOff);
    CHECK(w.rec.give_time(~me).event);
}

TEST_CASE("game record: berserk, where allowed, once, before one's own first turn of play") {
    Writer w;
    w.start();
    CHECK(w.rec.go_berserk(Side::Silver, false).refused == proto::Err::BerserkOff);
    auto d = w.rec.go_berserk(Side::Bronze, true);
    REQUIRE(d.event);
    CHECK(*d.event == proto::EventBody{proto::BerserkEv{Side::Bronze}});
    w.event(*d.event);
    CHECK(w.rec.berserk[1]);
    CHECK(w.rec.go_berserk(Side::Bronze, true).refused == proto::Err::BerserkOff);  // once
    w.turn(1);  // silver has played its first turn of play: too late for silver
    CHECK(w.rec.go_berserk(Side::Silver, true).refused == proto::Err::BerserkOff);
    // The journal replays into the same flags; a second berserk of one side does not replay.
    w.stored();
    GameRecord r = fresh();
    std::string error;
    CHECK(replays(r, w, error));
    CHECK(r.berserk[1]);
    CHECK_FALSE(r.berserk[0]);
    CHECK(r.apply(proto::BerserkEv{Side::Bronze}) == "berserk twice");
    // Bronze may still go berserk after silver's first turn, before its own.
    Writer v;
    v.start();
    v.turn(1);
    CHECK(v.rec.go_berserk(Side::Bronze, true).event);
    v.turn(2);
    CHECK(v.rec.go_berserk(Side::Bronze, true).refused == proto::Err::BerserkOff);
}

TEST_CASE("game record: a rematch is offered after the game, once; an offer back starts it") {
    Writer w;
    w.start();
    CHECK(w.rec.rematch(Side::Silver, false, false).refused == proto::Err::GameNotOver);
    w.event(proto::ResignEv{Side::Silver});
    w.event(proto::GameOverEv{w.rec.result()});
    CHECK(w.rec.preferences(Side::Silver, proto::Preferences{"abc234", false, std::nullopt})
              .refused == proto::Err::GameOver);
    CHECK(w.rec.rematch(Side::Silver, true, false).refused == proto::Err::NoRematchOffer);
    auto d = w.rec.rematch(Side::Silver, false, true);  // the computer: made at once
    CHECK_FALSE(d.event);
    CHECK_FALSE(d.refused);
    w.event(*w.rec.rematch(Side::Silver, false, false).event);
    CHECK(w.rec.rematch(Side::Silver, false, false).refused == proto::Err::RematchPending);
    d = w.rec.rematch(Side::Bronze, false, false);
    CHECK_FALSE(d.event);
    CHECK_FALSE(d.refused);
    w.event(proto::RematchEv{"def567"});
    CHECK(w.rec.rematch(Side::Bronze, false, false).refused == proto::Err::AlreadyStarted);
}

}  // namespace tf::server
