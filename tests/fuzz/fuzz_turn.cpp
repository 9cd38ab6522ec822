// Fuzzes setup and turn application (Game::apply_setup, Game::apply_turn) on random states.
// Input (docs/FUZZING.md), read from the front; missing bytes read as 0:
//   byte 0      variant: %4 = 0 default, 1 {7,4,2,30}, 2 {5,3,0,2}, 3 built from the next 4 bytes
//   byte 1      start: %3 = 0 no setups, 1 silver's random setup, 2 both setups + random turns
//   bytes 2-9   seed of the random setups and turns (little-endian)
//   byte 10     number of random elephant turns (0-255)
//   then up to 16 actions, each an action byte a followed by its operands:
//     a%8 = 0   a turn as JSON text, up to the next '\n' (or the end)
//     a%8 = 1   a setup as JSON text, likewise; for the other side when a >= 128
//     a%8 = 2   a setup from bytes (cells picked in the start zone and on the ring, or raw)
//     else      a turn from bytes: a generated move as is or mutated, or raw cells; a burnt
//               trunk; up to three guardian moves
// Checks, after every action: a rejected setup or turn leaves the game exactly as it was; an
// accepted one leaves a consistent game (Game::is_ok) that its snapshot and state JSON rebuild,
// an accepted turn's elephant move is one the generator lists (or it has none and the generator
// lists nothing), the turn prints and reads back (JSON and notation); every move the generator
// lists in the new state is accepted by the validator.
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "common/json.h"
#include "common/playout.h"
#include "tests/fuzz/rules_checks.h"

using namespace tf;
using namespace tf::fuzz;

namespace {

class Reader {
  public:
    Reader(const std::uint8_t* p, std::size_t n) : p_(p), n_(n) {}
    bool empty() const { return n_ == 0; }
    std::uint8_t byte() {
        if (n_ == 0) return 0;
        --n_;
        return *p_++;
    }
    std::uint64_t u64() {
        std::uint64_t v = 0;
        for (int i = 0; i < 8; ++i) v |= std::uint64_t(byte()) << (8 * i);
        return v;
    }
    std::string_view line() {
        std::size_t k = 0;
        while (k < n_ && p_[k] != '\n') ++k;
        std::string_view s(reinterpret_cast<const char*>(p_), k);
        std::size_t used = k < n_ ? k + 1 : k;
        p_ += used;
        n_ -= used;
        return s;
    }

  private:
    const std::uint8_t* p_;
    std::size_t n_;
};

Variant read_variant(Reader& in) {
    switch (in.byte() % 4) {
        case 1:
            return Variant{7, 4, 2, 30};
        case 2:
            return Variant{5, 3, 0, 2};
        case 3: {
            Variant v;
            v.size = kMinSize + in.byte() % (kMaxSize - kMinSize + 1);
            v.elephants = 1 + in.byte() % kMaxElephants;
            v.burnt = in.byte() % (kMaxBurnt + 1);
            v.quiet = kMinQuiet + in.byte();
            return check_variant(v) ? Variant{} : v;
        }
        default:
            return Variant{};
    }
}

// A cell from two bytes, from one beyond the ring to two beyond it on each axis.
Cell raw_cell(Reader& in, const Variant& v) {
    int x = in.byte() % (v.size + 4) - 1;
    int y = in.byte() % (v.size + 4) - 1;
    return {x, y};
}

std::vector<Cell> ring_cells(const Variant& v) {
    std::vector<Cell> ring;
    for (int y = 0; y <= v.size + 1; ++y)
        for (int x = 0; x <= v.size + 1; ++x)
            if (v.on_ring({x, y})) ring.push_back({x, y});
    return ring;
}

Setup read_setup(Reader& in, const Game& g, Side s) {
    const Variant& v = g.variant();
    const std::vector<Cell> ring = ring_cells(v);
    Setup st;
    int ne = in.byte() % (v.elephants + 2);
    for (int i = 0; i < ne; ++i) {
        std::uint8_t b = in.byte();
        if (b < 192) {
            int k = 2 + b % (v.size - 1);
            st.elephants.push_back(s == Side::Silver ? Cell{k, 1} : Cell{1, k});
        } else {
            st.elephants.push_back(raw_cell(in, v));
        }
    }
    int ng = in.byte() % 4;
    for (int i = 0; i < ng; ++i) {
        std::uint8_t b = in.byte();
        st.guardians.push_back(b < 192 ? ring[b % ring.size()] : raw_cell(in, v));
    }
    return st;
}

std::int64_t read_steps(Reader& in) {
    std::uint8_t b = in.byte();
    if (b == 0x7f) return std::numeric_limits<std::int64_t>::max();
    if (b == 0x80) return std::numeric_limits<std::int64_t>::min();
    return std::int8_t(b);
}

Turn read_turn(Reader& in, const Game& g) {
    const Variant& v = g.variant();
    Turn t;
    MoveList ml;
    if (g.phase() == Phase::Play) g.generate(ml);
    std::uint8_t e = in.byte();
    switch (e % 4) {
        case 0:
            break;  // no elephant move
        case 1:
        case 2: {
            if (ml.size == 0) break;
            ElephantMove m = g.to_elephant_move(ml[in.byte() % ml.size]);
            if (e % 4 == 2) {  // mutated
                std::uint8_t k = in.byte();
                switch (k % 6) {
                    case 0:
                        m.facing.reset();
                        break;
                    case 1:
                        m.facing = Dir((k / 6) % 4);
                        break;
                    case 2:
                        m.path.push_back(raw_cell(in, v));
                        break;
                    case 3:
                        if (!m.path.empty()) m.path.pop_back();
                        break;
                    case 4:
                        m.from = raw_cell(in, v);
                        break;
                    default: {
                        Cell& c = m.path[(k / 6) % m.path.size()];
                        c = step_cell(c, Dir(in.byte() % 4));
                    }
                }
            }
            t.elephant = m;
            break;
        }
        default: {  // raw
            ElephantMove m;
            m.from = raw_cell(in, v);
            int len = in.byte() % 5;
            for (int i = 0; i < len; ++i) m.path.push_back(raw_cell(in, v));
            std::uint8_t f = in.byte() % 5;
            if (f < 4) m.facing = Dir(f);
            t.elephant = m;
        }
    }
    if (in.byte() % 2) t.burnt = raw_cell(in, v);
    int ng = in.byte() % 4;
    const auto guardians = g.guardians();
    for (int i = 0; i < ng; ++i) {
        GuardianMove gm;
        std::uint8_t b = in.byte();
        gm.from =
            b < 192 && !guardians.empty() ? guardians[b % guardians.size()].cell : raw_cell(in, v);
        gm.dir = in.byte() % 2 ? Rot::Ccw : Rot::Cw;
        gm.steps = read_steps(in);
        t.guardians.push_back(gm);
    }
    return t;
}

bool generator_lists(const Game& g, const ElephantMove& em) {
    MoveList ml;
    g.generate(ml);
    for (const Move& m : ml)
        if (g.to_elephant_move(m) == em) return true;
    return false;
}

// Applies a setup or turn to a copy and checks the outcome; the game moves on when accepted.
void apply_setup(Game& g, Side s, const Setup& st) {
    Game next = g;
    if (auto err = next.apply_setup(s, st)) {
        TF_FUZZ_CHECK(!err->message.empty());
        TF_FUZZ_CHECK(same_state(next, g));
        return;
    }
    TF_FUZZ_CHECK(g.phase() == (s == Side::Silver ? Phase::SetupSilver : Phase::SetupBronze));
    auto back = setup_from_json(to_json(st));
    TF_FUZZ_CHECK(back && *back == st);
    check_representable(next);
    g = next;
    check_generator_agrees(g);
}

void apply_turn(Game& g, const Turn& t) {
    Game next = g;
    if (auto err = next.apply_turn(t)) {
        TF_FUZZ_CHECK(!err->message.empty());
        TF_FUZZ_CHECK(same_state(next, g));
        return;
    }
    TF_FUZZ_CHECK(g.phase() == Phase::Play);
    if (t.elephant) {
        TF_FUZZ_CHECK(generator_lists(g, *t.elephant));
    } else {
        TF_FUZZ_CHECK(!g.has_legal_move());
    }
    TF_FUZZ_CHECK(writable(t, g.variant()));
    check_turn_prints(t, g.variant());
    check_representable(next);
    Game again = g;  // the same turn, read back from its JSON, does the same
    TF_FUZZ_CHECK(!again.apply_turn(*turn_from_json(to_json(t))));
    TF_FUZZ_CHECK(same_state(again, next));
    g = next;
    check_generator_agrees(g);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    Reader in(data, size);
    Game g(read_variant(in));
    const int start = in.byte() % 3;
    Rng rng(in.u64());
    const int random_turns = in.byte();
    if (start == 1) g.apply_setup(Side::Silver, random_setup(g, rng));
    if (start == 2) play_random_game(g, rng, random_turns);
    check_representable(g);
    check_generator_agrees(g);

    for (int action = 0; action < 16 && !in.empty(); ++action) {
        const std::uint8_t a = in.byte();
        const Side side = a >= 128 ? ~g.to_move() : g.to_move();
        switch (a % 8) {
            case 0: {
                Json j = Json::parse(in.line(), nullptr, /*allow_exceptions=*/false);
                if (j.is_discarded()) break;
                if (auto t = turn_from_json(j)) apply_turn(g, *t);
                break;
            }
            case 1: {
                Json j = Json::parse(in.line(), nullptr, /*allow_exceptions=*/false);
                if (j.is_discarded()) break;
                if (auto st = setup_from_json(j)) apply_setup(g, side, *st);
                break;
            }
            case 2:
                apply_setup(g, side, read_setup(in, g, side));
                break;
            default:
                apply_turn(g, read_turn(in, g));
        }
    }
    return 0;
}
