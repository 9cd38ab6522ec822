// Value types of the Trunkfield rules (rules-v1): sides, directions, cells, variants.
// No I/O and no dependencies beyond the standard library.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tf {

using u8 = std::uint8_t;
using u16 = std::uint16_t;

enum class Side : u8 { Silver = 0, Bronze = 1 };
constexpr Side operator~(Side s) {
    return Side(u8(s) ^ 1);
}
constexpr int idx(Side s) {
    return int(s);
}
std::string_view side_name(Side s);  // "silver" / "bronze"
std::optional<Side> parse_side(std::string_view s);

// Directions in the order N, E, S, W (clockwise from north).
enum class Dir : u8 { N = 0, E = 1, S = 2, W = 3 };
constexpr Dir opposite(Dir d) {
    return Dir((u8(d) + 2) & 3);
}
constexpr int dx(Dir d) {
    return d == Dir::E ? 1 : d == Dir::W ? -1 : 0;
}
constexpr int dy(Dir d) {
    return d == Dir::N ? 1 : d == Dir::S ? -1 : 0;
}
char dir_char(Dir d);  // 'N', 'E', 'S', 'W'
std::optional<Dir> parse_dir(std::string_view s);

// The direction each side walks to leave the field, and so saves an elephant.
constexpr Dir goal_dir(Side s) {
    return s == Side::Silver ? Dir::N : Dir::E;
}

// Guardian movement along the ring. Clockwise is SW -> NW -> NE -> SE -> SW.
enum class Rot : u8 { Cw = 0, Ccw = 1 };
std::optional<Rot> parse_rot(std::string_view s);
std::string_view rot_name(Rot r);

// A cell as the canonical JSON has it: [x, y], x west->east, y south->north.
// Any pair of integers parses into a Cell; whether it is on the board is checked against a Variant.
struct Cell {
    int x = 0;
    int y = 0;
    friend constexpr bool operator==(Cell, Cell) = default;
    friend constexpr auto operator<=>(Cell, Cell) = default;
};
constexpr Cell step_cell(Cell c, Dir d, int k = 1) {
    return {c.x + k * dx(d), c.y + k * dy(d)};
}

inline constexpr int kMinSize = 5, kMaxSize = 13;
inline constexpr int kMaxElephants = kMaxSize - 2;  // per side
inline constexpr int kMaxBurnt = 9;
inline constexpr int kMinQuiet = 2, kMaxQuiet = 1000;

struct Variant {
    int size = 9;       // N, the field is N x N
    int elephants = 5;  // E per side
    int burnt = 3;      // B per side
    int quiet = 40;     // Q quiet turns in a row end the game
    friend bool operator==(const Variant&, const Variant&) = default;

    bool in_field(Cell c) const { return c.x >= 1 && c.x <= size && c.y >= 1 && c.y <= size; }
    bool on_board(Cell c) const {
        return c.x >= 0 && c.x <= size + 1 && c.y >= 0 && c.y <= size + 1;
    }
    bool on_ring(Cell c) const { return on_board(c) && !in_field(c); }
    bool in_start_zone(Side s, Cell c) const {
        return s == Side::Silver ? (c.y == 1 && c.x >= 2 && c.x <= size)
                                 : (c.x == 1 && c.y >= 2 && c.y <= size);
    }
    int ring_length() const { return 4 * size + 4; }
    int initial_trunks() const { return size * size - 2 * (size - 1) - 1; }
};

// Why a variant is invalid, or nullopt when it is valid.
std::optional<std::string> check_variant(const Variant& v);

// Cell notation of spec §1: field "c2", ring "Sc", "W4", corners "SW", "NW", "NE", "SE".
// Cells off the board print as "[x, y]".
std::string cell_name(Cell c, int size);
std::optional<Cell> parse_cell_name(std::string_view s, int size);

}  // namespace tf
