// What the server-to-client types know besides their wire form: names, results, captures.
#include <nlohmann/json.hpp>

#include "common/json.h"
#include "proto/messages.h"

namespace tf::proto {

std::string_view reason_name(ResultReason r) {
    switch (r) {
#define X(id, name)        \
    case ResultReason::id: \
        return name;
        TF_RESULT_REASONS(X)
#undef X
    }
    return {};
}

std::string_view abort_reason_name(AbortReason r) {
    return r == AbortReason::NoStart  ? "no_start"
           : r == AbortReason::Player ? "player"
                                      : "abandoned";
}

Result result_of(const Game& g) {
    Result r;
    r.over = g.over();
    r.score[0] = g.score(Side::Silver);
    r.score[1] = g.score(Side::Bronze);
    if (!g.over()) {
        r.to_move = g.to_move();
        return r;
    }
    switch (g.end_reason()) {
        case EndReason::Trunks:
            r.reason = ResultReason::Trunks;
            break;
        case EndReason::Herd:
            r.reason = ResultReason::Herd;
            break;
        case EndReason::Quiet:
            r.reason = ResultReason::Quiet;
            break;
        case EndReason::Resign:
            r.reason = ResultReason::Resign;
            break;
        case EndReason::Time:
            r.reason = ResultReason::Time;
            break;
        case EndReason::Agreement:
            r.reason = ResultReason::Agreement;
            break;
        case EndReason::Abandon:
            r.reason = ResultReason::Abandon;
            break;
        case EndReason::Stalling:
            r.reason = ResultReason::Stalling;
            break;
        case EndReason::None:
            break;
    }
    auto w = g.winner();
    r.winner = !w ? Winner::Draw : *w == Side::Silver ? Winner::Silver : Winner::Bronze;
    return r;
}

Result aborted_result(const Game& g) {
    Result r = result_of(g);
    r.over = true;
    r.reason = ResultReason::Aborted;
    r.winner = Winner::None;
    r.to_move.reset();
    return r;
}

std::vector<Captured> captures_of(const Game& before, const Game& after, const Turn& t) {
    std::vector<Captured> out;
    const std::optional<Cell> from =
        t.elephant ? std::optional<Cell>(t.elephant->from) : std::nullopt;
    auto gone = [&](Cell c) { return !after.elephant_on(c); };
    std::optional<Side> mover;
    for (const ElephantInfo& e : before.elephants()) {
        if (from && e.cell == *from) {
            mover = e.side;
            continue;
        }
        if (gone(e.cell)) out.push_back({e.side, e.cell});
    }
    if (mover && !t.elephant->path.empty()) {
        Cell landing = t.elephant->path.back();
        if (after.variant().in_field(landing) && gone(landing)) out.push_back({*mover, landing});
    }
    return out;
}

int takeback_turns(std::int64_t played, Side side) {
    if (played <= 0) return 0;
    const Side last = (played - 1) % 2 == 0 ? Side::Silver : Side::Bronze;
    const int k = last == side ? 1 : 2;
    return played - k >= 1 ? k : 0;
}

std::string_view event_kind(const EventBody& b) {
    if (auto* u = std::get_if<UnknownEv>(&b)) return u->kind;
    return kEventKinds[b.index()];
}

bool changes_game(const EventBody& b) {
    return !std::holds_alternative<ChatEv>(b) && !std::holds_alternative<DrawOfferEv>(b) &&
           !std::holds_alternative<DrawDeclineEv>(b) && !std::holds_alternative<PlayerLeftEv>(b) &&
           !std::holds_alternative<PlayerBackEv>(b) && !std::holds_alternative<SpectatorsEv>(b) &&
           !std::holds_alternative<RematchOfferEv>(b) &&
           !std::holds_alternative<RematchDeclineEv>(b) && !std::holds_alternative<RematchEv>(b) &&
           !std::holds_alternative<RatingsEv>(b) && !std::holds_alternative<UnknownEv>(b) &&
           !std::holds_alternative<TakebackOfferEv>(b) &&
           !std::holds_alternative<TakebackDeclineEv>(b) &&
           !std::holds_alternative<TimeGivenEv>(b) && !std::holds_alternative<PreferencesEv>(b) &&
           !std::holds_alternative<StallingEv>(b) && !std::holds_alternative<HiddenEv>(b) &&
           !std::holds_alternative<VacationEv>(b) && !std::holds_alternative<BerserkEv>(b);
}

bool versioned(const EventBody& b) {
    if (std::holds_alternative<SpectatorsEv>(b) || std::holds_alternative<RatingsEv>(b))
        return false;
    auto* c = std::get_if<ChatEv>(&b);
    return !c || c->room == ChatRoom::Players;
}

}  // namespace tf::proto
