// Validation of untrusted turns (spec §4, §5): every part is checked on a copy of the game, with
// an error that names the part and the reason; the game changes only when the whole turn is legal.
#include <string>

#include "game.h"

namespace tf {

namespace {

RuleError err(ErrorCode c, std::string m) {
    return RuleError{c, std::move(m)};
}

const char* dir_word(Dir d) {
    static const char* words[] = {"north", "east", "south", "west"};
    return words[int(d)];
}

}  // namespace

std::optional<RuleError> Game::apply_turn(const Turn& t) {
    if (over()) return err(ErrorCode::GameOver, "the game is over");
    if (phase_ != Phase::Play)
        return err(ErrorCode::WrongPhase, std::string("the game is waiting for ") +
                                              std::string(side_name(stm_)) + "'s setup");
    Game g = *this;
    const std::string who(side_name(stm_));
    bool progress = false;
    const bool can_move = g.has_legal_move();
    if (t.elephant) {
        if (!can_move)
            return err(
                ErrorCode::NoLegalMove,
                who + " has no legal elephant move, so the turn's elephant part must be null");
        if (auto e = g.play_elephant_checked(*t.elephant, progress)) return e;
        g.check_end();
        if (g.over() && (t.burnt || !t.guardians.empty()))
            return err(ErrorCode::AfterEnd,
                       "the game ended with the elephant move (" +
                           std::string(end_reason_name(g.reason_) == "trunks" ? "no trunk is left"
                                                                              : "a herd is gone") +
                           "), so the turn cannot go on with a burnt trunk or guardian moves");
    } else if (can_move) {
        MoveList ml;
        g.generate(ml);
        const ElephantMove ex = g.to_elephant_move(ml[0]);
        std::string path;
        for (Cell c : ex.path) path += "-" + cell_name(c, v_.size);
        return err(ErrorCode::ElephantRequired,
                   who + " must move an elephant: a legal move exists (for example " +
                       cell_name(ex.from, v_.size) + path + ")");
    }

    if (t.burnt) {
        const Cell c = *t.burnt;
        const std::string name = cell_name(c, v_.size);
        SideStats& st = g.stats_[idx(stm_)];
        if (st.burnt_left == 0)
            return err(ErrorCode::NoBurntLeft, who + " has no burnt trunk left to place");
        if (!v_.in_field(c))
            return err(ErrorCode::BurntCell,
                       "a burnt trunk goes on a field cell, and " + name + " is not one");
        const u8 fl = g.flags_[sq_of(c)];
        const char* what = fl & kTrunk      ? "a trunk"
                           : fl & kBurnt    ? "a burnt trunk"
                           : fl & kElephant ? "an elephant"
                                            : nullptr;
        if (what)
            return err(ErrorCode::BurntCell,
                       "cannot place a burnt trunk on " + name + ": it holds " + what);
        g.flags_[sq_of(c)] |= kBurnt;
        --st.burnt_left;
    }

    std::vector<Sq> moved_to;
    for (size_t i = 0; i < t.guardians.size(); ++i) {
        if (g.over())
            return err(ErrorCode::AfterEnd, "the game ended with guardian move " +
                                                std::to_string(i) +
                                                " (a herd is gone), so guardian move " +
                                                std::to_string(i + 1) + " cannot be played");
        if (auto e = g.play_guardian_checked(t.guardians[i], int(i) + 1, moved_to, progress))
            return e;
        g.check_end();
    }
    g.finish_turn(progress);
    *this = g;
    return std::nullopt;
}

std::optional<RuleError> Game::play_elephant_checked(const ElephantMove& m, bool& progress) {
    const int n = v_.size;
    auto name = [&](Cell c) { return cell_name(c, n); };
    const std::string who(side_name(stm_));
    const int id = v_.in_field(m.from) ? elephant_id(sq_of(m.from)) : -1;
    if (id < 0 || side_of(id) != stm_)
        return err(ErrorCode::NotOwnElephant,
                   "there is no " + who + " elephant at " + name(m.from));
    const size_t len = m.path.size();
    if (len == 0 || len > 3)
        return err(ErrorCode::PathLength, "the move has " + std::to_string(len) +
                                              " steps; an elephant moves 1 to 3 steps");
    const Dir facing = Dir(efacing_[id]);
    const Dir goal = goal_dir(stm_);
    ele_[esq_[id]] = 0;  // the start square counts as empty while the elephant moves
    flags_[esq_[id]] &= u8(~kElephant);
    Cell visited[4] = {m.from};
    Cell cur = m.from;
    for (size_t i = 0; i < len; ++i) {
        const std::string step = "step " + std::to_string(i + 1);
        const Cell to = m.path[i];
        const long long ddx = (long long)to.x - cur.x, ddy = (long long)to.y - cur.y;
        const long long dist = (ddx < 0 ? -ddx : ddx) + (ddy < 0 ? -ddy : ddy);
        if ((ddx != 0 && ddy != 0) || dist < 1 || dist > 2)
            return err(ErrorCode::StepShape, step + " goes from " + name(cur) + " to " + name(to) +
                                                 ": a step moves to an adjacent cell, or jumps "
                                                 "over one elephant to the cell beyond");
        const Dir d = ddx > 0 ? Dir::E : ddx < 0 ? Dir::W : ddy > 0 ? Dir::N : Dir::S;
        const bool jump = dist == 2;
        if (!jump && !v_.in_field(to)) {
            if (d == goal && facing == goal && on_goal_edge(stm_, sq_of(cur))) {
                if (i + 1 < len)
                    return err(ErrorCode::MoveContinues,
                               step +
                                   " leaves the field and saves the elephant, which ends the move, "
                                   "but the path goes on");
                esq_[id] = 0;
                --on_field_[idx(stm_)];
                ++stats_[idx(stm_)].saved;
                progress = true;
                if (m.facing)
                    return err(ErrorCode::FacingNotAllowed,
                               "the move ends by leaving the field, so it takes no facing");
                return std::nullopt;
            }
            return err(ErrorCode::StepOffField, step + " leaves the field at " + name(to) +
                                                    ": only an elephant facing " + dir_word(goal) +
                                                    " on " + who +
                                                    "'s goal edge may step forward off the field");
        }
        if (jump) {
            const Cell mid = step_cell(cur, d);
            if (!v_.in_field(mid) || !(flags_[sq_of(mid)] & kElephant))
                return err(ErrorCode::JumpOverNothing,
                           step + " goes two cells from " + name(cur) + " to " + name(to) +
                               ", but " + name(mid) + " holds no elephant to jump over");
            if (!v_.in_field(to))
                return err(ErrorCode::StepOffField,
                           step + " jumps off the field to " + name(to) +
                               ": an elephant leaves the field only by a plain forward step");
        } else if (flags_[sq_of(to)] & kElephant) {
            return err(ErrorCode::StepOnElephant, step + " lands on the elephant at " + name(to) +
                                                      " (a step toward an elephant jumps over it)");
        }
        const Sq t = sq_of(to);
        const u8 fl = flags_[t];
        if (fl & kCross)
            return err(ErrorCode::StepOnCrossing, step + " lands on a crossing at " + name(to));
        if (fl & kBurnt)
            return err(ErrorCode::StepOnBurnt, step + " lands on a burnt trunk at " + name(to));
        for (size_t v = 0; v <= i; ++v)
            if (visited[v] == to)
                return err(ErrorCode::StepRevisit,
                           step + " lands on " + name(to) + ", which this move already visited");
        if (fl & kElephant)
            return err(ErrorCode::StepOnElephant, step + " lands on the elephant at " + name(to));
        if (jump) {
            const int jumped = elephant_id(sq_of(step_cell(cur, d)));
            efacing_[jumped] = u8(opposite(Dir(efacing_[jumped])));
        }
        visited[i + 1] = to;
        cur = to;
        if (fl & kTrunk) {
            if (d != facing)
                return err(ErrorCode::TrunkNotForward,
                           step + " reaches the trunk at " + name(to) + " moving " + dir_word(d) +
                               ", but the elephant faces " + dir_word(facing) +
                               ": a trunk is collected only by a forward step");
            if (i + 1 < len)
                return err(ErrorCode::MoveContinues,
                           step + " collects the trunk at " + name(to) +
                               ", which ends the move, but the path goes on");
            if (m.facing)
                return err(ErrorCode::FacingNotAllowed,
                           "the move ends by collecting the trunk at " + name(to) +
                               ", so the facing stays " + dir_char(facing) +
                               " and may not be given");
            flags_[t] &= u8(~kTrunk);
            --trunks_on_field_;
            ++stats_[idx(stm_)].trunks;
            place_elephant(id, t, facing);
            progress = true;
            return std::nullopt;
        }
    }
    if (!m.facing)
        return err(ErrorCode::FacingRequired, "the move ends on the free cell " + name(cur) +
                                                  ", so it needs a facing (N, E, S or W)");
    place_elephant(id, sq_of(cur), *m.facing);
    return std::nullopt;
}

std::optional<RuleError> Game::play_guardian_checked(const GuardianMove& gm, int entry,
                                                     std::vector<Sq>& moved_to, bool& progress) {
    const int n = v_.size;
    const std::string who(side_name(stm_));
    const std::string part = "guardian move " + std::to_string(entry);
    const std::string from = cell_name(gm.from, n);
    int g = -1;
    if (v_.on_ring(gm.from))
        for (int k = stm_ == Side::Silver ? 0 : 2, e = k + 2; k < e; ++k)
            if (gsq_[k] == sq_of(gm.from)) g = k;
    if (g < 0)
        return err(ErrorCode::GuardianNotOwn,
                   part + ": there is no " + who + " guardian at " + from);
    for (Sq s : moved_to)
        if (s == gsq_[g])
            return err(ErrorCode::GuardianTwice,
                       part + ": the guardian at " + from + " already moved this turn");
    if (gm.steps < 1)
        return err(ErrorCode::GuardianSteps,
                   part + ": a guardian moves at least 1 cell, not " + std::to_string(gm.steps));
    SideStats& st = stats_[idx(stm_)];
    if (gm.steps > st.trunks)
        return err(ErrorCode::NotEnoughTrunks, part + " (" + std::to_string(gm.steps) +
                                                   " cells from " + from + ") costs " +
                                                   std::to_string(gm.steps) + " trunks, but " +
                                                   who + " holds " + std::to_string(st.trunks));
    const int len = v_.ring_length();
    int pos = ring_index(gm.from);
    for (int k = 1; k <= gm.steps; ++k) {
        pos = (pos + (gm.dir == Rot::Cw ? 1 : len - 1)) % len;
        if (flags_[sq_of(ring_cell(pos))] & kGuard)
            return err(ErrorCode::GuardianBlocked,
                       part + " from " + from + " (" + std::string(rot_name(gm.dir)) +
                           ") runs into the guardian at " + cell_name(ring_cell(pos), n) +
                           " after " + std::to_string(k) + (k == 1 ? " cell" : " cells"));
    }
    st.trunks -= int(gm.steps);
    st.spent += int(gm.steps);
    place_guardian(g, sq_of(ring_cell(pos)));
    moved_to.push_back(gsq_[g]);
    update_crossings();
    capture_on_crossings(progress);
    return std::nullopt;
}

}  // namespace tf
