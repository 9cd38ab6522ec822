// The state of one game of Trunkfield: setup phase, board, pieces, counters, end and score.
#pragma once

#include <array>
#include <optional>
#include <vector>

#include "error.h"
#include "turn.h"
#include "types.h"

namespace tf {

// Squares index a 16-wide mailbox with one cell of margin beyond the ring:
// sq = (y + 1) * 16 + (x + 1). Every step or jump from a field cell stays inside the arrays,
// and every square that is not on the field has no kField flag.
using Sq = u16;
inline constexpr int kW = 16;
inline constexpr int kSqCount = kW * 18;
inline constexpr int kOffset[4] = {kW, 1, -kW, -1};  // N, E, S, W
constexpr Sq sq_of(Cell c) {
    return Sq((c.y + 1) * kW + (c.x + 1));
}
constexpr Cell cell_of(Sq s) {
    return {s % kW - 1, s / kW - 1};
}

// Flags of a square.
enum : u8 {
    kField = 1,     // inside the field
    kTrunk = 2,     // natural trunk, collectable
    kBurnt = 4,     // burnt trunk, blocks forever
    kCross = 8,     // crossing of a watched column and a watched row
    kGuard = 16,    // a guardian stands here (ring only)
    kElephant = 32  // a field elephant stands here (see elephant_at)
};

// An elephant move in generator form: the start square, the landing square of each of the
// `len` (1..3) steps, and the chosen facing (0..3 as Dir) or kKeepFacing after a trunk or an exit.
// Squares are stored in one byte: a move's squares are field or ring cells, and those index
// below 256 even on the largest board ((13 + 2) * 16 + 13 + 2 = 255).
// Trivially constructible, so that a MoveList costs nothing to declare; eight bytes, so that
// the generator writes one as a single 64-bit store (byte i of the little-endian word = field i).
struct Move {
    u8 from;
    u8 path[3];
    u8 len;
    u8 facing;
    u8 pad_[2];
};
static_assert(sizeof(Move) == 8);
static_assert(sq_of({kMaxSize + 1, kMaxSize + 1}) < 256);
inline constexpr u8 kKeepFacing = 4;
inline constexpr u8 kAnyFacing = 5;  // generate_paths: a free-cell ending, four moves in one

// Upper bound on legal elephant moves: 52 paths of 1-3 steps, 4 facings each, 11 elephants.
inline constexpr int kMaxMoves = 52 * 4 * kMaxElephants;

struct MoveList {
    std::array<Move, kMaxMoves> moves;
    int size = 0;
    const Move* begin() const { return moves.data(); }
    const Move* end() const { return moves.data() + size; }
    const Move& operator[](int i) const { return moves[i]; }
};

enum class Phase : u8 { SetupSilver, SetupBronze, Play, Over };
enum class EndReason : u8 { None, Trunks, Herd, Quiet, Resign, Time, Agreement, Abandon, Stalling };
std::string_view end_reason_name(EndReason r);  // "trunks", "herd", ..., "" for None

struct SideStats {
    int trunks = 0;      // collected, not yet spent
    int spent = 0;       // paid for guardian moves
    int burnt_left = 0;  // burnt trunks not yet placed
    int saved = 0;       // own elephants that left through the goal edge
    int captured = 0;    // enemy elephants captured
};

struct ElephantInfo {
    Side side;
    Cell cell;
    Dir facing;
};
struct GuardianInfo {
    Side side;
    Cell cell;
};

// Everything that makes a position, as plain values: what state_to_json prints and
// game_from_json reads, and what tests use to build positions by hand.
struct Snapshot {
    Variant variant;
    Phase phase = Phase::Play;
    Side to_move = Side::Silver;
    int turns_played = 0;
    int quiet_turns = 0;
    EndReason reason = EndReason::None;
    std::optional<Side> loser;  // resign / time / abandon
    std::vector<Cell> trunks, burnt;
    std::vector<ElephantInfo> elephants;
    std::vector<GuardianInfo> guardians;
    SideStats stats[2];
};

class Game {
  public:
    // Assumes check_variant(v) found nothing wrong.
    explicit Game(const Variant& v);

    const Variant& variant() const { return v_; }
    Phase phase() const { return phase_; }
    bool over() const { return phase_ == Phase::Over; }
    // The side whose setup or turn is expected (meaningless once over).
    Side to_move() const { return stm_; }
    int turns_played() const { return turns_; }
    int quiet_turns() const { return quiet_; }
    int trunks_on_field() const { return trunks_on_field_; }
    int elephants_on_field(Side s) const { return on_field_[idx(s)]; }
    EndReason end_reason() const { return reason_; }
    // The winner once over; nullopt for a draw or a game still going.
    std::optional<Side> winner() const;
    int score(Side s) const;
    const SideStats& stats(Side s) const { return stats_[idx(s)]; }

    // Board queries (cells off the board answer false / nullopt).
    bool has_trunk(Cell c) const { return flags_at(c) & kTrunk; }
    bool has_burnt(Cell c) const { return flags_at(c) & kBurnt; }
    bool is_crossing(Cell c) const { return flags_at(c) & kCross; }
    std::optional<ElephantInfo> elephant_on(Cell c) const;
    std::optional<GuardianInfo> guardian_on(Cell c) const;
    std::vector<ElephantInfo> elephants() const;
    std::vector<GuardianInfo> guardians() const;
    std::vector<Cell> crossings() const;
    std::vector<Cell> trunk_cells() const;
    std::vector<Cell> burnt_cells() const;
    bool watches_column(int x) const;
    bool watches_row(int y) const;

    // Validated actions on untrusted input: on error nothing changes.
    std::optional<RuleError> apply_setup(Side s, const Setup& setup);
    std::optional<RuleError> apply_turn(const Turn& t);

    // Ends decided outside the rules (resignation, clock, agreement, abandonment).
    void resign(Side loser, EndReason why = EndReason::Resign);
    // A draw outside the rules: by agreement, or claimed from a player stalling (the server's).
    void agree_draw(EndReason why = EndReason::Agreement);

    Snapshot snapshot() const;
    // Builds a game from a snapshot after checking it is a position the rules can reach the
    // shape of (cells in range, no overlaps, counts within the variant, elephants not on
    // crossings).
    static Expected<Game> from_snapshot(const Snapshot& s);

    // Fast path for engines. Moves are legal elephant moves of the side to move.
    void generate(MoveList& out) const;
    // One entry per path instead of per move: an entry with facing kAnyFacing stands for the
    // four moves that end on the same free cell with each facing. For engines and playouts.
    void generate_paths(MoveList& out) const;
    bool has_legal_move() const;
    // Plays a whole turn that is this elephant move alone. Assumes a legal move.
    void play(const Move& m);
    // Plays a turn without an elephant move. Assumes there is no legal one.
    void play_pass();

    ElephantMove to_elephant_move(const Move& m) const;
    Turn to_turn(const Move& m) const { return Turn{to_elephant_move(m), std::nullopt, {}}; }

    // Low-level access for the generator and engines.
    u8 flags(Sq s) const { return flags_[s]; }
    int elephant_id(Sq s) const { return ele_[s] - 1; }  // -1 when none
    Sq elephant_sq(int id) const { return esq_[id]; }
    Dir elephant_facing(int id) const { return Dir(efacing_[id]); }
    static Side side_of(int id) { return id < kMaxElephants ? Side::Silver : Side::Bronze; }
    bool on_goal_edge(Side s, Sq sq) const {
        Cell c = cell_of(sq);
        return s == Side::Silver ? c.y == v_.size : c.x == v_.size;
    }

    // Debug self-check of every invariant (counts, flags, conservation); true when consistent.
    bool is_ok() const;

  private:
    u8 flags_at(Cell c) const { return v_.on_board(c) ? flags_[sq_of(c)] : 0; }
    Cell ring_cell(int pos) const;
    int ring_index(Cell c) const;  // -1 when c is not on the ring
    void place_elephant(int id, Sq s, Dir facing);
    void remove_elephant(int id);
    void place_guardian(int g, Sq s);
    void update_crossings();  // recompute kCross, capture nothing
    void capture_on_crossings(bool& progress);
    void check_end();                 // trunks / herd, immediately
    void finish_turn(bool progress);  // count the turn, quiet limit, switch sides
    std::optional<RuleError> check_setup(Side s, const Setup& setup) const;
    std::optional<RuleError> play_elephant_checked(const ElephantMove& m, bool& progress);
    std::optional<RuleError> play_guardian_checked(const GuardianMove& g, int entry,
                                                   std::vector<Sq>& moved_to, bool& progress);
    void apply_move(const Move& m, bool& progress);
    template <bool PerPath, class Emit>
    bool gen_elephant(int id, Emit&& emit) const;
    template <bool PerPath>
    void generate_into(MoveList& out) const;

    Variant v_;
    Phase phase_ = Phase::SetupSilver;
    Side stm_ = Side::Silver;
    EndReason reason_ = EndReason::None;
    std::optional<Side> loser_;  // for resign/time/abandon
    bool drawn_ = false;
    int turns_ = 0;
    int quiet_ = 0;
    int trunks_on_field_ = 0;
    int on_field_[2] = {0, 0};
    SideStats stats_[2];
    u8 flags_[kSqCount] = {};
    u8 ele_[kSqCount] = {};           // elephant id + 1, 0 when none
    Sq esq_[2 * kMaxElephants] = {};  // 0 when saved, captured or not placed
    u8 efacing_[2 * kMaxElephants] = {};
    Sq gsq_[4] = {};  // guardians 0,1 silver's, 2,3 bronze's; 0 = not placed
    int ncross_ = 0;
    Sq cross_[4] = {};
};

}  // namespace tf
