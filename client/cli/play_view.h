// What the terminal client knows about the game on screen, and how it is drawn: the board with
// coordinates on all sides, the status lines below it, the game-over banner. Drawing is a pure
// function of the view, so tests can check it without a terminal.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/game.h"

namespace tf::play {

using SteadyClock = std::chrono::steady_clock;

struct Style {
    bool color = false;    // ANSI SGR colours
    bool unicode = false;  // arrows and dots instead of ASCII
};

// `text` wrapped in the SGR attributes `sgr` (e.g. "1;33") when colours are on.
std::string paint(const Style& st, const char* sgr, std::string_view text);

struct ClockView {
    bool timed = false;
    bool correspondence = false;       // days per move: shown as "2d 23h" (format_days_clock)
    std::int64_t ms[2] = {0, 0};       // time left at `received`
    std::optional<Side> running;       // whose time runs
    bool berserk[2] = {false, false};  // arena games: the side went berserk
    SteadyClock::time_point received;  // when this reading arrived (local time)
    // Milliseconds left for `s` at `now`, counting down locally for the running side.
    std::int64_t left(Side s, SteadyClock::time_point now) const;
    // left() as shown: format_clock, or format_days_clock in a correspondence game.
    std::string text(Side s, SteadyClock::time_point now) const;
};

struct PlayerView {
    bool seated = false;
    std::string id, name;
    bool away = false;
    std::string rating;  // a rated game's: "1500?" (provisional) or "1712"
};

struct GameView {
    std::string code;
    std::int64_t version = -1;  // -1: no snapshot yet
    std::string status;         // open | playing | over | cancelled | aborted
    std::optional<Game> game;
    PlayerView players[2];
    std::optional<Side> me;  // the seat of this client, nullopt when watching
    ClockView clock;
    std::string time_control;          // "5+3" or "untimed"
    std::vector<std::string> history;  // every played turn in notation
    std::optional<Side> draw_offer;
    std::optional<Side> takeback_offer;  // the side whose takeback request stands
    std::optional<Side> stalling;        // the side judged stalling
    bool finished = false;               // game_over seen (or a snapshot of a finished game)
    std::string result_winner;           // "silver" | "bronze" | "draw" | "" (none: aborted)
    std::string result_reason;           // the rules' or server's reason
    int result_score[2] = {0, 0};
    std::string abort_reason;  // from an "abort" event
    int spectators = 0;
    bool rated = false;
    std::string invitee;           // an open challenge's: the only player who may join
    std::vector<Cell> last_cells;  // cells the last elephant move touched, highlighted

    bool has_game() const { return game.has_value(); }
    bool my_move() const;  // seated, game going on, my setup or turn expected
};

// The board (ring included) with column letters and row numbers on all four sides.
std::string render_board(const GameView& v, const Style& st);
// The lines under the board: players, counters, score, clocks, turn, last turn, crossings.
std::string render_status(const GameView& v, const Style& st, SteadyClock::time_point now);
// Board, status and (when finished) the banner.
std::string render_game(const GameView& v, const Style& st, SteadyClock::time_point now);
// "silver wins 9–7: no trunks left on the field", or empty while the game goes on.
std::string result_text(const GameView& v);
// "4:31", "1:02:03", "0:07".
std::string format_clock(std::int64_t ms);
// A correspondence game's clock: "2d 23h", "5h 12m" from an hour up, else as format_clock.
std::string format_days_clock(std::int64_t ms);
// The sides as the client writes them ("silver"/"bronze").
std::string side_label(Side s);

}  // namespace tf::play
