// Golden perft counts (Stockfish's habit): the number of elephant-only turn sequences of a given
// length from fixed positions, one per variant size class. They pin the move generator: a change
// that alters any of them changes what the rules allow, and must be explained by the rules.
// The positions are both sides' setups drawn with Rng(seed) (random_setup), so they depend on
// the generator of setups too.
#include <doctest/doctest.h>

#include "common/playout.h"

namespace tf {
namespace {

struct Golden {
    Variant variant;
    std::uint64_t seed;
    int depth;
    std::uint64_t nodes;
};

Game position(const Golden& g) {
    Game game(g.variant);
    Rng rng(g.seed);
    for (Side s : {Side::Silver, Side::Bronze})
        REQUIRE(!game.apply_setup(s, random_setup(game, rng)));
    return game;
}

}  // namespace

TEST_CASE("perft: golden node counts per variant") {
    const Golden cases[] = {
        {Variant{5, 3, 1, 20}, 1, 4, 328213},    {Variant{7, 4, 2, 30}, 2, 3, 110313},
        {Variant{9, 5, 3, 40}, 3, 3, 303304},    {Variant{11, 7, 3, 40}, 4, 3, 405985},
        {Variant{13, 11, 9, 1000}, 5, 3, 74396},
    };
    for (const Golden& g : cases) {
        const std::uint64_t n = perft(position(g), g.depth);
        INFO("variant " << g.variant.size << "/" << g.variant.elephants << "/" << g.variant.burnt
                        << "/" << g.variant.quiet << " depth " << g.depth);
        CHECK(n == g.nodes);
    }
}

}  // namespace tf
