#include "server/cluster/bus_messages.h"

#include <nlohmann/json.hpp>
#include <stdexcept>

namespace tf::server::bus {

using nlohmann::json;

namespace {

template <class... F>
struct Overload : F... {
    using F::operator()...;
};
template <class... F>
Overload(F...) -> Overload<F...>;

json header(const Message& m) {
    return std::visit(
        Overload{
            [](const Req& r) {
                return json{{"k", "req"},         {"from", r.from},         {"conn", r.conn},
                            {"code", r.code},     {"seq", r.seq},           {"ref", r.ref},
                            {"pid", r.player_id}, {"pname", r.player_name}, {"acct", r.account},
                            {"bot", r.bot}};
            },
            [](const Out& o) {
                json h{{"k", "out"}, {"from", o.from}, {"to", o.to}, {"conns", o.conns}};
                if (o.seq) h["seq"] = o.seq;
                return h;
            },
            [](const Gone& g) {
                return json{{"k", "gone"}, {"from", g.from}, {"conn", g.conn}};
            },
            [](const Alive& a) {
                return json{{"k", "alive"}, {"from", a.from}, {"conns", a.conns}};
            },
            [](const NotMine& n) {
                return json{{"k", "notmine"},
                            {"from", n.from},
                            {"to", n.to},
                            {"conn", n.conn},
                            {"code", n.code}};
            },
            [](const Close& c) {
                return json{{"k", "close"},
                            {"from", c.from},
                            {"to", c.to},
                            {"conn", c.conn},
                            {"reason", c.reason}};
            },
            [](const Back& b) {
                return json{{"k", "back"}, {"from", b.from}};
            },
            [](const Lobby& l) {
                return json{{"k", "lobby"}, {"from", l.from}, {"code", l.code}};
            },
            [](const Moved& m) {
                return json{{"k", "moved"}, {"code", m.code}, {"owner", m.owner}};
            },
            [](const Sync& s) {
                return json{{"k", "sync"}, {"from", s.from}};
            },
            [](const End& e) {
                return json{{"k", "end"},
                            {"from", e.from},
                            {"player", e.player},
                            {"reason", e.reason},
                            {"closed", e.closed}};
            },
            [](const Tell& t) {
                return json{{"k", "tell"}, {"from", t.from}, {"player", t.player}};
            },
            [](const Refresh& r) {
                return json{{"k", "refresh"}, {"from", r.from}, {"player", r.player}};
            },
            [](const Rewatch& r) {
                return json{{"k", "rewatch"},
                            {"from", r.from},
                            {"to", r.to},
                            {"conn", r.conn},
                            {"code", r.code}};
            },
            [](const Handover& h) {
                return json{{"k", "handover"}, {"from", h.from}};
            },
        },
        m);
}

// A field's value, of its type, or a reason.
struct Reader {
    const json& h;
    std::string text(const char* key) const {
        auto it = h.find(key);
        if (it == h.end() || !it->is_string()) throw std::invalid_argument(field(key, "a string"));
        return it->get<std::string>();
    }
    std::uint64_t number(const char* key, bool required = true) const {
        auto it = h.find(key);
        if (it == h.end() && !required) return 0;
        if (it == h.end() || !it->is_number_unsigned())
            throw std::invalid_argument(field(key, "a number ≥ 0"));
        return it->get<std::uint64_t>();
    }
    bool flag(const char* key, bool required = true) const {
        auto it = h.find(key);
        if (it == h.end() && !required) return false;
        if (it == h.end() || !it->is_boolean())
            throw std::invalid_argument(field(key, "a boolean"));
        return it->get<bool>();
    }
    std::vector<std::uint64_t> numbers(const char* key) const {
        auto it = h.find(key);
        if (it == h.end() || !it->is_array()) throw std::invalid_argument(field(key, "an array"));
        std::vector<std::uint64_t> out;
        for (const auto& v : *it) {
            if (!v.is_number_unsigned()) throw std::invalid_argument(field(key, "numbers ≥ 0"));
            out.push_back(v.get<std::uint64_t>());
        }
        return out;
    }
    static std::string field(const char* key, const char* what) {
        return std::string("field \"") + key + "\" must be " + what;
    }
};

Message read(const std::string& k, const Reader& r) {
    if (k == "req")
        return Req{r.text("from"),  r.number("conn"), r.text("code"),
                   r.number("seq"), r.text("ref"),    r.text("pid"),
                   r.text("pname"), r.flag("acct"),   r.flag("bot", false)};
    if (k == "out") {
        Out o{r.text("from"), r.text("to"), {}, r.number("seq", false)};
        if (r.h.contains("conns"))
            o.conns = r.numbers("conns");
        else
            o.conns = {r.number("conn")};  // a node of the first cluster release
        if (o.conns.empty()) throw std::invalid_argument("field \"conns\" must not be empty");
        return o;
    }
    if (k == "gone") return Gone{r.text("from"), r.number("conn")};
    if (k == "alive") return Alive{r.text("from"), r.numbers("conns")};
    if (k == "notmine")
        return NotMine{r.text("from"), r.text("to"), r.number("conn"), r.text("code")};
    if (k == "close")
        return Close{r.text("from"), r.text("to"), r.number("conn"), r.text("reason")};
    if (k == "back") return Back{r.text("from")};
    if (k == "lobby") return Lobby{r.text("from"), r.text("code")};
    if (k == "moved") return Moved{r.text("code"), r.text("owner")};
    if (k == "sync") return Sync{r.text("from")};
    if (k == "end")
        return End{r.text("from"), r.text("player"), r.text("reason"),
                   r.h.contains("closed") && r.flag("closed")};
    if (k == "handover") return Handover{r.text("from")};
    if (k == "tell") return Tell{r.text("from"), r.text("player")};
    if (k == "refresh") return Refresh{r.text("from"), r.text("player")};
    if (k == "rewatch")
        return Rewatch{r.text("from"), r.text("to"), r.number("conn"), r.text("code")};
    throw std::invalid_argument("unknown kind \"" + k + "\"");
}

}  // namespace

std::string encode(const Message& m, std::string_view body) {
    json h = header(m);
    h["v"] = kVersion;
    std::string s = h.dump();
    s += '\n';
    s.append(body);
    return s;
}

std::optional<Decoded> decode(std::string_view payload, std::string* why) {
    auto fail = [&](std::string reason) -> std::optional<Decoded> {
        if (why) *why = std::move(reason);
        return std::nullopt;
    };
    const auto nl = payload.find('\n');
    if (nl == std::string_view::npos) return fail("no header line");
    json h = json::parse(payload.substr(0, nl), nullptr, false);
    if (!h.is_object()) return fail("the header is not a JSON object");
    if (auto v = h.find("v"); v != h.end() && (!v->is_number_unsigned() || *v < 1))
        return fail("field \"v\" must be a version ≥ 1");
    auto k = h.find("k");
    if (k == h.end() || !k->is_string()) return fail("field \"k\" must be a string");
    try {
        return Decoded{read(k->get<std::string>(), Reader{h}), payload.substr(nl + 1)};
    } catch (const std::exception& e) {
        return fail(k->get<std::string>() + ": " + e.what());
    }
}

}  // namespace tf::server::bus
