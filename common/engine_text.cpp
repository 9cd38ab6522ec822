#include "common/engine_text.h"

#include <algorithm>
#include <charconv>

#include "common/bot.h"
#include "common/notation.h"

namespace tf::engine {

namespace {

std::optional<std::int64_t> number(const std::string& s) {
    std::int64_t v = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || p != s.data() + s.size() || v < 0) return std::nullopt;
    return v;
}

}  // namespace

std::optional<Variant> parse_newgame(const std::vector<std::string>& w, std::string& err) {
    Variant v;
    if (w.size() % 2 != 1) {
        err = "malformed newgame: newgame size N elephants E burnt B quiet Q";
        return std::nullopt;
    }
    for (std::size_t i = 1; i + 1 < w.size(); i += 2) {
        auto n = number(w[i + 1]);
        int* field = w[i] == "size"        ? &v.size
                     : w[i] == "elephants" ? &v.elephants
                     : w[i] == "burnt"     ? &v.burnt
                     : w[i] == "quiet"     ? &v.quiet
                                           : nullptr;
        if (!field || !n || *n > 1000) {
            err = "malformed newgame: " + w[i] + " " + w[i + 1];
            return std::nullopt;
        }
        *field = int(*n);
    }
    if (auto bad = check_variant(v)) {
        err = "variant: " + *bad;
        return std::nullopt;
    }
    return v;
}

std::string newgame_text(const Variant& v) {
    return "newgame size " + std::to_string(v.size) + " elephants " + std::to_string(v.elephants) +
           " burnt " + std::to_string(v.burnt) + " quiet " + std::to_string(v.quiet);
}

std::optional<GoLimits> parse_go(const std::vector<std::string>& w, std::string& err) {
    GoLimits g;
    for (std::size_t i = 1; i < w.size(); i += 2) {
        auto n = i + 1 < w.size() ? number(w[i + 1]) : std::nullopt;
        std::int64_t* field = w[i] == "stime"      ? &g.time[0]
                              : w[i] == "btime"    ? &g.time[1]
                              : w[i] == "sinc"     ? &g.inc[0]
                              : w[i] == "binc"     ? &g.inc[1]
                              : w[i] == "movetime" ? &g.movetime
                                                   : nullptr;
        if (!field || !n) {
            err = "malformed go: " + w[i] + (i + 1 < w.size() ? " " + w[i + 1] : "");
            return std::nullopt;
        }
        *field = *n;
    }
    return g;
}

int level_for(int level, const GoLimits& g, Side side) {
    const auto left = g.time[idx(side)];
    if ((left >= 0 && left < 2000) || (g.movetime >= 0 && g.movetime < 300)) return 1;
    if ((left >= 0 && left < 10000) || (g.movetime >= 0 && g.movetime < 1000))
        return std::min(level, 3);
    return level;
}

std::string setup_text(const Setup& s, int size) {
    std::string out;
    for (Cell c : s.elephants) out += (out.empty() ? "" : " ") + cell_name(c, size);
    for (Cell c : s.guardians) out += " " + cell_name(c, size);
    return out;
}

std::string rest_of(std::string_view line, std::string_view word) {
    auto at = line.find(word);
    if (at == std::string_view::npos) return {};
    line.remove_prefix(at + word.size());
    while (!line.empty() && line.front() == ' ') line.remove_prefix(1);
    while (!line.empty() && (line.back() == ' ' || line.back() == '\r')) line.remove_suffix(1);
    return std::string(line);
}

bool play(Game& g, bool setup, const std::string& text, std::string& err) {
    const int size = g.variant().size;
    if (g.over()) {
        err = "illegal: the game is over";
        return false;
    }
    if (setup) {
        if (g.phase() == Phase::Play) {
            err = "illegal: the setups are made";
            return false;
        }
        auto s = parse_setup_words(split_words(text), size, err);
        if (!s) {
            err = "malformed setup: " + err;
            return false;
        }
        if (auto e = g.apply_setup(g.to_move(), *s)) {
            err = "illegal " + e->message;
            return false;
        }
        return true;
    }
    if (g.phase() != Phase::Play) {
        err = "illegal: a setup is expected";
        return false;
    }
    auto t = turn_from_notation(text, size);
    if (!t) {
        err = "malformed turn: " + t.error().message;
        return false;
    }
    if (auto e = g.apply_turn(*t)) {
        err = "illegal " + e->message;
        return false;
    }
    return true;
}

std::vector<std::string> hints(const Game& g, std::mt19937_64& rng) {
    constexpr std::size_t kMaxHints = 64, kMaxSetupHints = 8;
    std::vector<std::string> out;
    const int size = g.variant().size;
    if (g.phase() != Phase::Play) {
        for (std::uint64_t s = 1; out.size() < kMaxSetupHints && s < 64; ++s) {
            auto setup = bot_setup(g, BotOptions{1, rng() + s});
            auto text = setup ? setup_text(*setup, size) : std::string();
            if (setup && std::find(out.begin(), out.end(), text) == out.end()) out.push_back(text);
        }
        return out;
    }
    MoveList moves;
    g.generate(moves);
    std::vector<int> order(std::size_t(moves.size));
    for (int i = 0; i < moves.size; ++i) order[std::size_t(i)] = i;
    std::shuffle(order.begin(), order.end(), rng);
    for (int i : order) {
        if (out.size() == kMaxHints) break;
        out.push_back(turn_to_notation(g.to_turn(moves[i]), size));
    }
    if (out.empty()) out.push_back(turn_to_notation(Turn{}, size));
    return out;
}

}  // namespace tf::engine
