#include "server/tournament/colours.h"

#include <algorithm>

namespace tf::server::tournament {

int SideHistory::difference() const {
    return int(std::count(played.begin(), played.end(), Side::Silver)) -
           int(std::count(played.begin(), played.end(), Side::Bronze));
}

SidePreference preference(const SideHistory& h) {
    if (h.played.empty()) return {};
    const int d = h.difference();
    const Side last = h.played.back();
    const bool twice = h.played.size() >= 2 && h.played[h.played.size() - 2] == last;
    if (d > 1 || d < -1 || twice) {
        // The side the difference asks for; with a difference within ±1, the one not played
        // twice in a row.
        const Side want = d > 1 ? Side::Bronze : d < -1 ? Side::Silver : ~last;
        return {SidePreference::Absolute, want};
    }
    if (d == 1) return {SidePreference::Strong, Side::Bronze};
    if (d == -1) return {SidePreference::Strong, Side::Silver};
    return {SidePreference::Mild, ~last};
}

bool side_conflict(const SideHistory& a, const SideHistory& b) {
    const SidePreference pa = preference(a), pb = preference(b);
    return pa.strength == SidePreference::Absolute && pb.strength == SidePreference::Absolute &&
           pa.side == pb.side;
}

Side side_of_higher(const SideHistory& higher, const SideHistory& lower, Side fresh) {
    const SidePreference ph = preference(higher), pl = preference(lower);
    if (ph.strength == SidePreference::None && pl.strength == SidePreference::None) return fresh;
    if (ph.strength == SidePreference::None) return ~pl.side;
    if (pl.strength == SidePreference::None) return ph.side;
    if (ph.side != pl.side) return ph.side;
    if (ph.strength != pl.strength) return ph.strength > pl.strength ? ph.side : ~pl.side;
    // Same side wanted as strongly: the latest game (counted back from each one's last) in
    // which they played different sides decides; each now takes the other's side of then.
    const auto& a = higher.played;
    const auto& b = lower.played;
    for (std::size_t i = 1; i <= std::min(a.size(), b.size()); ++i) {
        const Side sa = a[a.size() - i], sb = b[b.size() - i];
        if (sa != sb) return sb;
    }
    return ph.side;
}

}  // namespace tf::server::tournament
