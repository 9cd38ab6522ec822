#include "server/room/room_parts.h"

#include "server/base/time.h"

#include <algorithm>
#include <set>
#include <utility>

namespace tf::server {

RoomLimits RoomLimits::from(const Config& cfg, const std::optional<proto::TimeControl>& tc) {
    RoomLimits l;
    l.grace = steady_seconds(cfg.grace_seconds);
    // --award-seconds unset (negative): one more grace period.
    l.award = steady_seconds(cfg.award_seconds < 0 ? cfg.grace_seconds : cfg.award_seconds);
    l.start_timeout = steady_seconds(cfg.start_timeout_seconds);
    l.retention = steady_seconds(cfg.retention_seconds);
    l.open_away = steady_seconds(cfg.open_away_seconds);
    l.open_cancel = steady_seconds(cfg.open_cancel_seconds);
    l.day = steady_seconds(cfg.correspondence_day_seconds);
    l.chat_window = steady_seconds(cfg.chat_window_seconds);
    l.chat_lines = cfg.chat_lines;
    l.history = cfg.history;
    using namespace std::chrono;
    if (cfg.stall_seconds > 0)
        l.stall = steady_seconds(cfg.stall_seconds);
    else if (!tc)
        l.stall = minutes(3);
    else
        l.stall = std::max<SteadyClock::duration>(
            minutes(1), 3 * milliseconds(tc->initial_ms / 40 + tc->increment_ms));
    if (tc && tc->correspondence()) {
        const auto per_move = tc->days_per_move * l.day;
        l.start_timeout = 2 * per_move;
        l.open_away = hours(24 * 365 * 50);  // never off the lobby for it
        l.open_cancel = kOpenDays * l.day;
    }
    return l;
}

bool RoomChat::allow(const std::string& player_id, TimePoint now) {
    auto& times = times_[player_id];
    while (!times.empty() && times.front() <= now - window_) times.pop_front();
    if (int(times.size()) >= lines_) return false;
    times.push_back(now);
    return true;
}

void RoomChat::remember(const proto::ChatEv& line) {
    log_.push_back(line);
    while (log_.size() > kLog) log_.pop_front();
}

std::vector<proto::ChatEv> RoomChat::shown(bool for_spectator) const {
    std::vector<proto::ChatEv> out;
    for (const auto& c : log_)
        if (for_spectator || c.room == proto::ChatRoom::Players) out.push_back(c);
    return out;
}

void RoomOffers::turn_made(Side side) {
    draw_offered[idx(side)] = false;
    takeback_asked[idx(side)] = false;
    if (draw == side) draw.reset();  // the offer lapses with this turn
    takeback.reset();                // a takeback request lapses with any turn
}

void EventHistory::add(std::int64_t version, Msg event) {
    events_.emplace_back(version, std::move(event));
    trim();
}

void EventHistory::finished() {
    limit_ = std::min(limit_, kFinished);
    trim();
    events_.shrink_to_fit();
}

void EventHistory::take(EventHistory&& other) {
    events_ = std::move(other.events_);
    trim();
}

std::optional<std::int64_t> EventHistory::applied_after(
    Side side, std::int64_t version,
    const std::function<bool(const proto::EventBody&)>& same) const {
    if (!reaches(version)) return std::nullopt;
    for (const auto& [v, msg] : events_) {
        if (v <= version) continue;
        auto parsed = proto::parse_server(*msg);
        auto* sm = std::get_if<proto::ServerMsg>(&parsed);
        auto* ev = sm ? std::get_if<proto::Event>(sm) : nullptr;
        if (!ev || !proto::changes_game(ev->body)) continue;
        auto* setup = std::get_if<proto::SetupEv>(&ev->body);
        auto* turn = std::get_if<proto::TurnEv>(&ev->body);
        const bool by_side = (setup && setup->side == side) || (turn && turn->side == side);
        if (by_side && same(ev->body)) return v;
        return std::nullopt;  // the first change after `version` was another
    }
    return std::nullopt;
}

void EventHistory::trim() {
    while (events_.size() > limit_) events_.pop_front();
}

std::vector<RoomOps::Out> Suspension::notices(std::optional<bool> saved,
                                              const std::vector<RoomOps::Out>& held,
                                              const std::vector<RoomOps::Out>& watching,
                                              const std::string& code) const {
    using proto::Err;
    std::set<const Participant*> told;
    const std::string text =
        saved ? "the game could not be saved; it is paused at its last saved position (version " +
                    std::to_string(saved_version) +
                    ") and resumes by itself as soon as the server can save again"
              : std::string(
                    "the game could not be saved; it is paused and resumes by itself as "
                    "soon as the server can save again (its snapshot then shows what was "
                    "saved)");
    std::vector<RoomOps::Out> out;
    if (saved != true)
        for (const auto& o : held) {
            if (!o.ack) continue;
            auto p = o.to.lock();
            if (!p || !told.insert(p.get()).second) continue;
            auto e = saved == false
                         ? proto::ErrorMsg{Err::StoreFailed, text,         *o.ack,
                                           saved_version,    std::nullopt, code}
                         : proto::ErrorMsg{Err::InDoubt,
                                           "the server cannot tell whether this was saved: the "
                                           "game is paused and cannot be read right now; once it "
                                           "resumes (a snapshot), it shows what was saved",
                                           *o.ack,
                                           std::nullopt,
                                           std::nullopt,
                                           code};
            out.push_back({o.to, std::make_shared<const std::string>(proto::to_text(e)), o.crowd});
        }
    auto generic = std::make_shared<const std::string>(proto::to_text(proto::ErrorMsg{
        Err::StoreFailed, text, std::nullopt,
        saved ? std::optional<std::int64_t>(saved_version) : std::nullopt, std::nullopt, code}));
    for (const auto& w : watching) {
        auto p = w.to.lock();
        if (p && told.insert(p.get()).second) out.push_back({w.to, generic, w.crowd});
    }
    return out;
}

void SeatRatings::note(Side s, const std::optional<Player>& player, RatingBook& book) {
    if (category && player) seat[idx(s)] = book.view(player->id, *category);
}

const proto::RatingsEv& SeatRatings::applied(const RateGame::Outcome& outcome,
                                             const std::optional<Player> (&players)[2],
                                             RatingBook& book, std::int64_t now_ms) {
    proto::RatingsEv ev{category.value_or(""), {}};
    for (Side s : {Side::Silver, Side::Bronze}) {
        const int i = idx(s);
        if (!players[i]) continue;
        book.set(players[i]->id, outcome.after[i]);
        ev.change[i] = proto::RatingChange{rating_view(outcome.before[i], now_ms).rating,
                                           rating_view(outcome.after[i], now_ms)};
    }
    return *(changes = std::move(ev));
}

std::optional<RateGame> SeatRatings::game(const proto::Result& result, bool started,
                                          const std::optional<Player> (&players)[2],
                                          std::int64_t at_ms) const {
    using proto::Winner;
    if (!category || !started || !players[0] || !players[1] || result.winner == Winner::None)
        return std::nullopt;
    RateGame g;
    g.category = *category;
    g.player[0] = players[0]->id;
    g.player[1] = players[1]->id;
    g.silver_score = result.winner == Winner::Silver   ? 1
                     : result.winner == Winner::Bronze ? 0
                                                       : 0.5;
    g.at_ms = at_ms;
    g.rate = rate_game;
    return g;
}

std::vector<proto::EventBody> RoomDeadlines::presence(const bool (&present)[2], TimePoint now,
                                                      const RoomLimits& l) {
    std::vector<proto::EventBody> out;
    for (Side s : {Side::Silver, Side::Bronze}) {
        auto& away = away_since[idx(s)];
        if (!present[idx(s)] && !away) {
            away = now;
            out.push_back(proto::PlayerLeftEv{s, epoch_ms(now + l.grace, now),
                                              epoch_ms(now + l.grace + l.award, now)});
        } else if (present[idx(s)] && away) {
            away.reset();
            out.push_back(proto::PlayerBackEv{s});
        }
    }
    return out;
}

bool RoomDeadlines::creator_presence(bool here, TimePoint now) {
    if (!here && !creator_away) {
        creator_away = now;
    } else if (here && creator_away) {
        creator_away.reset();
        return std::exchange(delisted, false);
    }
    return false;
}

std::optional<TimePoint> RoomDeadlines::next(const RoomLimits& l, const View& v) const {
    using Status = proto::GameStatus;
    std::optional<TimePoint> earliest;
    auto consider = [&](std::optional<TimePoint> t) {
        if (t && (!earliest || *t < *earliest)) earliest = t;
    };
    if (v.status == Status::Playing) {
        consider(v.flag);
        consider(start);
        consider(stall);
        for (Side s : {Side::Silver, Side::Bronze})
            if (v.started && (v.present[idx(~s)] || !v.timed)) consider(award_at(s, l));
    }
    if (v.status == Status::Open && creator_away) {
        if (!delisted) consider(*creator_away + l.open_away);
        consider(*creator_away + l.open_cancel);
    }
    consider(remove);
    consider(v.spectators);
    consider(live_flush);
    if (v.status == Status::Suspended) consider(v.retry);
    return earliest;
}

void Suspension::pause(std::optional<Clock>& clock, TimePoint now) {
    resume_running = clock ? clock->running() : std::nullopt;
    if (!clock || !resume_running) return;
    if (last_clock_at_ms > 0 && suspended_ms > last_clock_at_ms)
        clock->charge(*resume_running, std::chrono::milliseconds(suspended_ms - last_clock_at_ms));
    clock->stop(now);
}

void Suspension::resume(std::optional<Clock>& clock, bool playing, TimePoint now) {
    if (clock && resume_running && playing) clock->start(*resume_running, now);
    resume_running.reset();
}

}  // namespace tf::server
