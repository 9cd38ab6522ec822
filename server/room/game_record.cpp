#include "server/room/game_record.h"

#include <cassert>

#include "server/store/record_codec.h"

namespace tf::server {

GameRecord::GameRecord(Variant variant, bool rated)
    : game(std::make_unique<Game>(variant)), variant_(std::move(variant)), rated_(rated) {
    prefs[0] = prefs[1] = proto::SeatPrefs{!rated, true};  // takebacks: unrated only
}

std::optional<Side> GameRecord::seat_of(const std::string& player_id) const {
    for (Side s : {Side::Silver, Side::Bronze})
        if (seats[idx(s)] && seats[idx(s)]->id == player_id) return s;
    return std::nullopt;
}

proto::Result GameRecord::result() const {
    if (summary.active) return summary.result;
    return status == Status::Aborted ? proto::aborted_result(*game) : proto::result_of(*game);
}

int GameRecord::takeback_turns(Side side) const {
    if (game->phase() != Phase::Play) return 0;
    return proto::takeback_turns(std::int64_t(turns.size()), side);
}

void GameRecord::drop_turns(int n) {
    turns.resize(turns.size() - std::size_t(n));
    auto g = std::make_unique<Game>(variant_);
    for (Side s : {Side::Silver, Side::Bronze}) g->apply_setup(s, *setups[idx(s)]);
    for (const Turn& t : turns) g->apply_turn(t);
    game = std::move(g);
    assert(game->is_ok());
}

std::optional<Decision> GameRecord::not_movable(Side side,
                                                std::optional<std::int64_t> version) const {
    using proto::Err;
    if (game->to_move() != side)
        return Decision::refuse(Err::NotYourTurn, "it is the opponent's turn");
    if (version && *version < state_version)
        return Decision::refuse(Err::StaleVersion, "the game has moved on since that version");
    if (version && *version > this->version)
        return Decision::refuse(Err::StaleVersion, "version " + std::to_string(*version) +
                                                       " is newer than the game's (" +
                                                       std::to_string(this->version) +
                                                       "): resynchronise with watch");
    return std::nullopt;
}

namespace {
Decision rules_refuse(proto::Err code, const RuleError& e) {
    Decision d = Decision::refuse(code, e.message);
    d.rule = std::string(error_code_name(e.code));
    return d;
}
}  // namespace

std::optional<RuleError> GameRecord::make_setup(Side side, const Setup& s) {
    if (auto e = game->apply_setup(side, s)) return e;
    assert(game->is_ok());
    setups[idx(side)] = s;
    return std::nullopt;
}

std::optional<RuleError> GameRecord::make_turn(Side side, const Turn& t) {
    if (auto e = game->apply_turn(t)) return e;
    assert(game->is_ok());
    turns.push_back(t);
    offers.turn_made(side);
    stalling.reset();
    if (game->over()) offers.draw.reset();  // the last turn: no offer stands past the end
    return std::nullopt;
}

Decision GameRecord::setup(Side side, const Setup& s, std::optional<std::int64_t> version) {
    if (auto no = not_movable(side, version)) return *no;
    if (game->phase() != Phase::SetupSilver && game->phase() != Phase::SetupBronze)
        return Decision::refuse(proto::Err::WrongPhase, "the setup phase is over");
    if (auto e = make_setup(side, s)) return rules_refuse(proto::Err::IllegalSetup, *e);
    return {proto::SetupEv{side, s}};
}

Decision GameRecord::turn(Side side, const Turn& t, std::optional<std::int64_t> version) {
    if (auto no = not_movable(side, version)) return *no;
    if (game->phase() != Phase::Play)
        return Decision::refuse(proto::Err::WrongPhase, "setups are not complete");
    const Game before = *game;
    if (auto e = make_turn(side, t)) return rules_refuse(proto::Err::IllegalTurn, *e);
    return {proto::TurnEv{side, t, proto::captures_of(before, *game, t)}};
}

Decision GameRecord::draw(Side side, OfferAct act) const {
    using proto::Err;
    if (act == OfferAct::Offer && offers.draw != ~side) {
        if (offers.draw == side || offers.draw_offered[idx(side)])
            return Decision::refuse(Err::DrawPending, "you offered a draw since your last turn");
        return {proto::DrawOfferEv{side}};
    }
    if (offers.draw != ~side)
        return Decision::refuse(Err::NoDrawOffer, "your opponent has not offered a draw");
    if (act == OfferAct::Decline) return {proto::DrawDeclineEv{side}};
    return {proto::DrawAcceptEv{side}};
}

Decision GameRecord::takeback(Side side, OfferAct act, bool bot) const {
    using proto::Err;
    if (act == OfferAct::Offer && offers.takeback != ~side) {
        if (!prefs[idx(side)].takeback)
            return Decision::refuse(Err::TakebackOff, "you do not accept takebacks in this game");
        if (!prefs[idx(~side)].takeback)
            return Decision::refuse(Err::TakebackOff,
                                    "your opponent does not accept takebacks in this game");
        if (offers.takeback == side || offers.takeback_asked[idx(side)])
            return Decision::refuse(Err::TakebackPending,
                                    "you asked for a takeback since your last turn");
        const int n = takeback_turns(side);
        if (n == 0)
            return Decision::refuse(Err::NothingToTakeBack,
                                    "you have no turn to take back (the game's first turn stays)");
        if (bot) return {proto::TakebackEv{side, n}};
        return {proto::TakebackOfferEv{side}};
    }
    if (offers.takeback != ~side)
        return Decision::refuse(Err::NoTakebackOffer, "your opponent has not asked for a takeback");
    if (act == OfferAct::Decline) return {proto::TakebackDeclineEv{side}};
    return {proto::TakebackEv{~side, takeback_turns(~side)}};
}

Decision GameRecord::rematch(Side side, bool decline, bool bot) const {
    using proto::Err;
    if (!proto::finished(status))
        return Decision::refuse(Err::GameNotOver, "the game is still going on");
    if (offers.rematch_code || offers.rematch_starting)
        return Decision::refuse(
            Err::AlreadyStarted,
            "the rematch is already being played" +
                (offers.rematch_code ? ": game " + *offers.rematch_code : std::string()));
    if (decline) {
        if (offers.rematch != ~side)
            return Decision::refuse(Err::NoRematchOffer, "your opponent has not offered a rematch");
        return {proto::RematchDeclineEv{side}};
    }
    if (offers.rematch == side)
        return Decision::refuse(Err::RematchPending, "your rematch offer stands");
    if (offers.rematch == ~side || bot) return {};  // accepted: the room makes it
    return {proto::RematchOfferEv{side}};
}

Decision GameRecord::preferences(Side side, const proto::Preferences& m) const {
    if (status != Status::Open && status != Status::Playing)
        return Decision::refuse(proto::Err::GameOver, "the game is over");
    proto::SeatPrefs next = prefs[idx(side)];
    if (m.takeback) next.takeback = *m.takeback;
    if (m.more_time) next.more_time = *m.more_time;
    if (next == prefs[idx(side)]) return {};  // nothing changes: nothing to say
    return {proto::PreferencesEv{side, next}};
}

Decision GameRecord::give_time(Side side) const {
    if (!prefs[idx(~side)].more_time)
        return Decision::refuse(proto::Err::MoreTimeOff, "your opponent does not accept more time");
    return {proto::TimeGivenEv{side, proto::kGiveTimeMs}};
}

Decision GameRecord::go_berserk(Side side, bool allows) const {
    using proto::Err;
    if (!allows) return Decision::refuse(Err::BerserkOff, "only an arena's games allow berserk");
    if (berserk[idx(side)]) return Decision::refuse(Err::BerserkOff, "you went berserk already");
    // Silver plays the first turn of play, bronze the second.
    if (std::ssize(turns) > (side == Side::Silver ? 0 : 1))
        return Decision::refuse(Err::BerserkOff, "berserk only before your first turn of play");
    return {proto::BerserkEv{side}};
}

void GameRecord::count(const proto::EventBody& body) {
    ++version;
    if (proto::changes_game(body)) state_version = version;
}

std::string GameRecord::end(Side loser, EndReason why) {
    game->resign(loser, why);
    return {};
}

struct GameRecord::Replayer {
    GameRecord& r;
    std::string operator()(const proto::JoinEv& e) {
        // Only accounts sit in a rated game.
        r.seats[idx(e.side)] = Player{e.player.id, e.player.name, r.rated_, e.player.bot};
        r.status = Status::Playing;
        return {};
    }
    std::string operator()(const proto::SetupEv& e) {
        if (r.game->to_move() != e.side) return "out of turn";
        if (auto err = r.make_setup(e.side, e.setup)) return err->message;
        return {};
    }
    std::string operator()(const proto::TurnEv& e) {
        if (r.game->phase() != Phase::Play || r.game->to_move() != e.side) return "out of turn";
        if (auto err = r.make_turn(e.side, e.turn)) return err->message;
        return {};
    }
    std::string operator()(const proto::StallingEv& e) {
        r.stalling = e.side;
        return {};
    }
    std::string operator()(const proto::StallClaimEv& e) {
        if (r.stalling != ~e.side) return "a claim against a player who was not stalling";
        if (e.draw)
            r.game->agree_draw(EndReason::Stalling);
        else
            r.game->resign(~e.side, EndReason::Stalling);
        return {};
    }
    std::string operator()(const proto::TakebackOfferEv& e) {
        r.offers.takeback = e.side;
        r.offers.takeback_asked[idx(e.side)] = true;
        return {};
    }
    std::string operator()(const proto::TakebackDeclineEv&) {
        r.offers.takeback.reset();
        return {};
    }
    std::string operator()(const proto::TakebackEv& e) {
        if (e.turns <= 0 || r.takeback_turns(e.side) != e.turns) return "a takeback of other turns";
        r.drop_turns(e.turns);
        r.offers.takeback.reset();
        r.offers.draw.reset();
        r.stalling.reset();
        return {};
    }
    std::string operator()(const proto::TimeGivenEv&) { return {}; }  // the clocks' readings
    std::string operator()(const proto::BerserkEv& e) {
        if (r.berserk[idx(e.side)]) return "berserk twice";
        r.berserk[idx(e.side)] = true;
        return {};
    }
    std::string operator()(const proto::VacationEv& e) {
        r.vacation[idx(e.side)] = e.on;
        return {};
    }
    std::string operator()(const proto::PreferencesEv& e) {
        r.prefs[idx(e.side)] = e.prefs;
        // Turning takebacks off withdraws a standing request either way.
        if (!e.prefs.takeback) r.offers.takeback.reset();
        return {};
    }
    std::string operator()(const proto::DrawOfferEv& e) {
        r.offers.draw = e.side;
        r.offers.draw_offered[idx(e.side)] = true;
        return {};
    }
    std::string operator()(const proto::DrawDeclineEv&) {
        r.offers.draw.reset();
        return {};
    }
    std::string operator()(const proto::ResignEv& e) { return r.end(e.side, EndReason::Resign); }
    std::string operator()(const proto::TimeoutEv& e) { return r.end(e.side, EndReason::Time); }
    std::string operator()(const proto::AbandonEv& e) { return r.end(e.side, EndReason::Abandon); }
    std::string operator()(const proto::DrawAcceptEv&) {
        r.game->agree_draw();
        return {};
    }
    std::string operator()(const proto::AbortEv&) {
        r.status = Status::Aborted;
        return {};
    }
    std::string operator()(const proto::GameOverEv&) {
        if (r.status == Status::Aborted) return {};
        if (!r.game->over()) return "the game is not over";
        r.status = Status::Over;
        return {};
    }
    std::string operator()(const proto::CancelEv&) {
        r.status = Status::Cancelled;
        return {};
    }
    // After the game: the rematch offers and the rematch itself.
    std::string operator()(const proto::RematchOfferEv& e) {
        r.offers.rematch = e.side;
        return {};
    }
    std::string operator()(const proto::RematchDeclineEv&) {
        r.offers.rematch.reset();
        return {};
    }
    std::string operator()(const proto::RematchEv& e) {
        r.offers.rematch.reset();
        r.offers.rematch_code = e.code;
        return {};
    }
    // Chat (the players' room only is journaled) and presence change nothing recorded here;
    // the spectator count and the rating changes are never journaled.
    std::string operator()(const proto::ChatEv& e) {
        if (e.room != proto::ChatRoom::Players) return "a spectators' line in the journal";
        return {};
    }
    std::string operator()(const proto::PlayerLeftEv&) { return {}; }
    std::string operator()(const proto::PlayerBackEv&) { return {}; }
    std::string operator()(const proto::SpectatorsEv&) { return "not a journaled event"; }
    std::string operator()(const proto::HiddenEv&) { return "not a journaled event"; }
    std::string operator()(const proto::RatingsEv&) { return "not a journaled event"; }
    std::string operator()(const proto::UnknownEv& e) { return "unknown event " + e.kind; }
};

std::string GameRecord::apply(const proto::EventBody& body) {
    const bool ends = std::holds_alternative<proto::ResignEv>(body) ||
                      std::holds_alternative<proto::TimeoutEv>(body) ||
                      std::holds_alternative<proto::AbandonEv>(body) ||
                      std::holds_alternative<proto::DrawAcceptEv>(body) ||
                      std::holds_alternative<proto::StallClaimEv>(body) ||
                      std::holds_alternative<proto::AbortEv>(body);
    auto why = std::visit(Replayer{*this}, body);
    if (why.empty() && ends) {  // nothing offered or judged stands past the end
        offers.draw.reset();
        offers.takeback.reset();
        stalling.reset();
    }
    return why;
}

bool GameRecord::replay(const StoredGame& row, const std::vector<JournalRow>& journal,
                        const std::function<void(const proto::Event&, const JournalRow&)>& each,
                        std::string& error) {
    auto fail = [&](std::string why) {
        error = std::move(why);
        return false;
    };
    for (const auto& jr : journal) {
        const std::string at =
            "journal version " + std::to_string(jr.version) + " (" + jr.kind + "): ";
        if (jr.version != version + 1)
            return fail(at + "follows version " + std::to_string(version));
        std::string why;
        auto ev = read_row(jr, why);
        if (!ev) return fail(at + why);
        const bool after_end_ok = std::holds_alternative<proto::GameOverEv>(ev->body) ||
                                  std::holds_alternative<proto::ChatEv>(ev->body) ||
                                  std::holds_alternative<proto::RematchOfferEv>(ev->body) ||
                                  std::holds_alternative<proto::RematchDeclineEv>(ev->body) ||
                                  std::holds_alternative<proto::RematchEv>(ev->body);
        if (proto::finished(status) && !after_end_ok) return fail(at + "after the end of the game");
        if (auto e = apply(ev->body); !e.empty()) return fail(at + e);
        count(ev->body);
        each(*ev, jr);
    }
    if (version != row.version)
        return fail("the journal ends at version " + std::to_string(version) +
                    " but the game row says " + std::to_string(row.version));
    if (game->over() && !proto::finished(status))
        return fail("the rules ended the game but the journal has no game_over");
    if (status == Status::Playing && (!seats[0] || !seats[1]))
        return fail("a game being played with an empty seat");
    if (proto::status_name(status) != row.status)
        return fail("the journal leaves the game " + std::string(proto::status_name(status)) +
                    " but the game row says " + row.status);
    created_ms = row.created_ms;
    finished_ms = row.finished_ms;
    return true;
}

std::optional<RoomParams> RoomParams::of_row(const StoredGame& row, std::string& error) {
    RoomParams params;
    auto variant = variant_of(row.variant, error);
    if (!variant) return std::nullopt;
    params.variant = *variant;
    auto tc = time_control_of(row.time_control, error);
    if (!tc) return std::nullopt;
    params.time_control = *tc;
    auto creator = parse_side(row.creator_side);
    if (!creator) {
        error = "stored creator side: " + row.creator_side;
        return std::nullopt;
    }
    params.creator_side = *creator;
    params.is_public = row.is_public;
    params.quick_match = row.quick_match;
    params.bot_level = row.bot_level;
    params.rated = row.rated;
    params.creator_address = row.creator_addr;
    params.invitee_id = row.invitee_id;
    params.invitee_name = row.invitee_name;
    return params;
}

StoredGame GameRecord::row(const std::string& code, const RoomParams& params) const {
    StoredGame g;
    g.code = code;
    g.variant = variant_text(params.variant);
    g.time_control = time_control_text(params.time_control);
    g.is_public = params.is_public;
    g.quick_match = params.quick_match;
    g.creator_side = side_name(params.creator_side);
    g.bot_level = params.bot_level;
    g.rated = params.rated;
    g.invitee_id = params.invitee_id;
    g.invitee_name = params.invitee_name;
    for (int i = 0; i < 2; ++i) {
        if (!seats[i]) continue;
        g.seat_id[i] = seats[i]->id;
        g.seat_name[i] = seats[i]->name;
        g.seat_bot[i] = seats[i]->bot;
    }
    g.status = proto::status_name(status);
    g.result = result_text(proto::finished(status) ? std::optional(result()) : std::nullopt);
    g.turns = summary.active ? summary.turns : std::int64_t(turns.size());
    g.version = version;
    g.created_ms = created_ms;
    g.finished_ms = finished_ms;
    if (status == Status::Open) g.creator_addr = params.creator_address;
    return g;
}

void GameRecord::compact() {
    if (!summary.active) {
        summary.result = result();
        summary.turns = std::int64_t(turns.size());
        summary.active = true;
    }
    game.reset();
    setups[0].reset();
    setups[1].reset();
    std::vector<Turn>().swap(turns);
}

void GameRecord::expand(GameRecord&& full) {
    game = std::move(full.game);
    setups[0] = std::move(full.setups[0]);
    setups[1] = std::move(full.setups[1]);
    turns = std::move(full.turns);
    summary.active = false;
}

}  // namespace tf::server
