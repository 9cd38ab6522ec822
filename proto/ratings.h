// Rating categories (PROTOCOL.md "Ratings"): a rated game counts for one rating of each
// player, chosen by its speed and board. Speed comes from the time control's estimated length,
// lichess's rule: the initial time plus 40 increments; untimed games are their own category.
// Boards: the standard variant (9 x 9, 5 elephants, 3 burnt, 40 quiet turns) and the small one
// (7 x 7, 3, 2, 30); other variants are played casual only, so every rating compares games of
// one set of rules.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/types.h"

namespace tf::proto {

struct TimeControl;

// The category of a game, or nullopt when such a game cannot be rated (another variant).
// Names: "bullet" (under 3 minutes), "blitz" (under 8), "rapid" (under 25), "classical",
// "correspondence" (days per move), "untimed"; on the small board the same with "small_" in front.
std::optional<std::string> rating_category(const Variant& v, const std::optional<TimeControl>& tc);
// Every category, standard board first, fastest first.
const std::vector<std::string>& rating_categories();
bool is_rating_category(std::string_view name);

// A rating as players see it: rounded to whole points; provisional ("1500?") while the
// deviation is above 110, as lichess shows it.
inline constexpr double kProvisionalDeviation = 110;
struct RatingView {
    int rating = 1500;
    int deviation = 500;
    int games = 0;  // rated games played in the category
    bool provisional = true;
    friend bool operator==(const RatingView&, const RatingView&) = default;
};

}  // namespace tf::proto
