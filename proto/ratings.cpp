#include "proto/ratings.h"

#include <algorithm>

#include "proto/messages.h"

namespace tf::proto {

namespace {

const Variant kSmall{7, 3, 2, 30};

}  // namespace

std::optional<std::string> rating_category(const Variant& v, const std::optional<TimeControl>& tc) {
    std::string board;
    if (v == Variant{})
        board = "";
    else if (v == kSmall)
        board = "small_";
    else
        return std::nullopt;
    if (!tc) return board + "untimed";
    if (tc->correspondence()) return board + "correspondence";
    const std::int64_t estimate_ms = tc->initial_ms + 40 * tc->increment_ms;
    const char* speed = estimate_ms < 3 * 60'000    ? "bullet"
                        : estimate_ms < 8 * 60'000  ? "blitz"
                        : estimate_ms < 25 * 60'000 ? "rapid"
                                                    : "classical";
    return board + speed;
}

const std::vector<std::string>& rating_categories() {
    static const std::vector<std::string> all = [] {
        std::vector<std::string> v;
        for (const char* board : {"", "small_"})
            for (const char* speed :
                 {"bullet", "blitz", "rapid", "classical", "correspondence", "untimed"})
                v.push_back(std::string(board) + speed);
        return v;
    }();
    return all;
}

bool is_rating_category(std::string_view name) {
    const auto& all = rating_categories();
    return std::find(all.begin(), all.end(), name) != all.end();
}

}  // namespace tf::proto
