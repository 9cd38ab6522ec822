// One serializer per server -> client message (PROTOCOL.md "Server → client"), written with
// JsonWriter straight into the message's string. Keys are written in sorted order, so every
// message is byte for byte what nlohmann::json would dump for it (a test checks this).
#include <nlohmann/json.hpp>

#include "common/json.h"
#include "proto/json_writer.h"
#include "proto/messages.h"

namespace tf::proto {

void write(JsonWriter& w, const Result& r);

namespace {

template <class T, class F>
void opt(JsonWriter& w, const std::optional<T>& v, F&& f) {
    if (v)
        f(*v);
    else
        w.null();
}

void write(JsonWriter& w, const PlayerRef& p) {
    w.begin_object();
    if (p.bot) w.key("bot").value(true);
    w.key("id").value(p.id).key("name").value(p.name).end_object();
}

void write(JsonWriter& w, const std::optional<ClockReading>& c) {
    if (!c) return (void)w.null();
    w.begin_object();
    w.key("at").value(c->at);
    w.key("bronze_ms").value(c->bronze_ms);
    w.key("running");
    opt(w, c->running, [&](Side s) { proto::write(w, s); });
    w.key("silver_ms").value(c->silver_ms);
    w.end_object();
}

void write(JsonWriter& w, const RatingView& r) {
    w.begin_object();
    w.key("deviation").value(r.deviation);
    w.key("games").value(r.games);
    w.key("provisional").value(r.provisional);
    w.key("rating").value(r.rating);
    w.end_object();
}

void write(JsonWriter& w, const RatingsEv& e) {
    auto change = [&](Side s) {
        w.key(side_name(s));
        opt(w, e.change[idx(s)], [&](const RatingChange& c) {
            w.begin_object().key("after");
            write(w, c.after);
            w.key("before").value(c.before).end_object();
        });
    };
    w.begin_object();
    change(Side::Bronze);
    w.key("category").value(e.category);
    change(Side::Silver);
    w.end_object();
}

void write_score(JsonWriter& w, const int score[2]) {
    w.begin_object().key("bronze").value(score[1]).key("silver").value(score[0]).end_object();
}

// A snapshot's list of the sides a flag holds for (vacation, berserk): the key only when one does.
void write_sides(JsonWriter& w, const char* key, const bool sides[2]) {
    if (!sides[0] && !sides[1]) return;
    w.key(key).begin_array();
    for (Side s : {Side::Silver, Side::Bronze})
        if (sides[idx(s)]) proto::write(w, s);
    w.end_array();
}

void side_only(JsonWriter& w, Side s) {
    w.begin_object().key("side");
    proto::write(w, s);
    w.end_object();
}

struct PayloadWriter {
    JsonWriter& w;
    void operator()(const JoinEv& e) {
        w.begin_object().key("player");
        write(w, e.player);
        w.key("side");
        proto::write(w, e.side);
        w.end_object();
    }
    void operator()(const SetupEv& e) {
        w.begin_object().key("setup");
        proto::write(w, e.setup);
        w.key("side");
        proto::write(w, e.side);
        w.end_object();
    }
    void operator()(const TurnEv& e) {
        w.begin_object().key("captures").begin_array();
        for (const Captured& c : e.captures) {
            w.begin_object().key("cell");
            proto::write(w, c.cell);
            w.key("side");
            proto::write(w, c.side);
            w.end_object();
        }
        w.end_array().key("side");
        proto::write(w, e.side);
        w.key("turn");
        proto::write(w, e.turn);
        w.end_object();
    }
    void operator()(const ResignEv& e) { side_only(w, e.side); }
    void operator()(const DrawOfferEv& e) { side_only(w, e.side); }
    void operator()(const DrawDeclineEv& e) { side_only(w, e.side); }
    void operator()(const DrawAcceptEv& e) { side_only(w, e.side); }
    void operator()(const TakebackOfferEv& e) { side_only(w, e.side); }
    void operator()(const StallingEv& e) { side_only(w, e.side); }
    void operator()(const StallClaimEv& e) {
        w.begin_object().key("draw").value(e.draw).key("side");
        proto::write(w, e.side);
        w.end_object();
    }
    void operator()(const BerserkEv& e) { side_only(w, e.side); }
    void operator()(const VacationEv& e) {
        w.begin_object().key("on").value(e.on).key("side");
        proto::write(w, e.side);
        w.end_object();
    }
    void operator()(const TakebackDeclineEv& e) { side_only(w, e.side); }
    void operator()(const TakebackEv& e) {
        w.begin_object().key("side");
        proto::write(w, e.side);
        w.key("turns").value(std::int64_t(e.turns));
        w.end_object();
    }
    void operator()(const TimeGivenEv& e) {
        w.begin_object().key("ms").value(e.ms).key("side");
        proto::write(w, e.side);
        w.end_object();
    }
    void operator()(const PreferencesEv& e) {
        w.begin_object().key("more_time").value(e.prefs.more_time).key("side");
        proto::write(w, e.side);
        w.key("takeback").value(e.prefs.takeback);
        w.end_object();
    }
    void operator()(const TimeoutEv& e) { side_only(w, e.side); }
    void operator()(const PlayerBackEv& e) { side_only(w, e.side); }
    void operator()(const PlayerLeftEv& e) {
        w.begin_object();
        w.key("award_at").value(e.award_at);
        w.key("claim_at").value(e.claim_at);
        w.key("side");
        proto::write(w, e.side);
        w.end_object();
    }
    void operator()(const AbandonEv& e) {
        w.begin_object().key("claimed").value(e.claimed).key("side");
        proto::write(w, e.side);
        w.end_object();
    }
    void operator()(const AbortEv& e) {
        w.begin_object().key("reason").value(abort_reason_name(e.reason));
        if (e.side) {
            w.key("side");
            proto::write(w, *e.side);
        }
        w.end_object();
    }
    void operator()(const GameOverEv& e) { write(w, e.result); }
    void operator()(const HiddenEv&) { w.begin_object().end_object(); }
    void operator()(const ChatEv& e) {
        w.begin_object().key("from");
        write(w, e.from);
        if (e.hidden) w.key("hidden").value(true);
        w.key("room").value(e.room == ChatRoom::Spectators ? "spectators" : "players");
        w.key("text").value(e.text).end_object();
    }
    void operator()(const RematchOfferEv& e) { side_only(w, e.side); }
    void operator()(const RematchDeclineEv& e) { side_only(w, e.side); }
    void operator()(const RematchEv& e) { w.begin_object().key("code").value(e.code).end_object(); }
    void operator()(const CancelEv& e) {
        w.begin_object();
        if (e.declined) w.key("declined").value(*e.declined);
        w.end_object();
    }
    void operator()(const SpectatorsEv& e) {
        w.begin_object().key("count").value(e.count).end_object();
    }
    void operator()(const RatingsEv& e) { write(w, e); }
    void operator()(const UnknownEv&) { w.begin_object().end_object(); }
};

template <class F>
std::string message(F&& body) {
    std::string out;
    out.reserve(128);
    JsonWriter w(out);
    w.begin_object();
    body(w);
    w.end_object();
    return out;
}

}  // namespace

void write(JsonWriter& w, const Result& r) {
    w.begin_object();
    w.key("over").value(r.over);
    w.key("reason");
    opt(w, r.reason, [&](ResultReason x) { w.value(reason_name(x)); });
    w.key("score");
    write_score(w, r.score);
    w.key("to_move");
    opt(w, r.to_move, [&](Side s) { proto::write(w, s); });
    w.key("winner");
    switch (r.winner) {
        case Winner::None:
            w.null();
            break;
        case Winner::Silver:
            w.value("silver");
            break;
        case Winner::Bronze:
            w.value("bronze");
            break;
        case Winner::Draw:
            w.value("draw");
            break;
    }
    w.end_object();
}

std::string to_text(const Result& r) {
    std::string out;
    JsonWriter w(out);
    write(w, r);
    return out;
}

std::string to_text(const Welcome& m) {
    return message([&](JsonWriter& w) {
        w.key("account");
        opt(w, m.account, [&](const AccountInfo& a) {
            w.begin_object().key("ratings").begin_object();
            for (const auto& [category, r] : a.ratings) {
                w.key(category);
                write(w, r);
            }
            w.end_object();
            if (!a.roles.empty()) {
                w.key("roles").begin_array();
                for (const auto& r : a.roles) w.value(r);
                w.end_array();
            }
            w.key("username").value(a.username).end_object();
        });
        w.key("games").begin_array();
        for (const auto& g : m.games) w.value(g);
        w.end_array();
        w.key("name").value(m.name);
        w.key("player_id").value(m.player_id);
        if (m.ref) w.key("ref").value(*m.ref);
        w.key("token").value(m.token);
        w.key("type").value("welcome");
        w.key("versions").begin_array();
        for (int v : m.versions) w.value(v);
        w.end_array();
    });
}

std::string to_text(const GameCreated& m) {
    return message([&](JsonWriter& w) {
        w.key("code").value(m.code).key("link").value(m.link);
        if (m.ref) w.key("ref").value(*m.ref);
        w.key("type").value("game_created");
    });
}

std::string to_text(const SnapshotMsg& m) {
    return message([&](JsonWriter& w) {
        write_sides(w, "berserk", m.berserk);
        w.key("chat").begin_array();
        for (const ChatEv& c : m.chat) PayloadWriter{w}(c);
        w.end_array();
        w.key("clocks");
        write(w, m.clocks);
        w.key("draw_offer");
        opt(w, m.draw_offer, [&](Side s) { proto::write(w, s); });
        w.key("game").value(m.game);
        w.key("players").begin_object();
        for (Side s : {Side::Bronze, Side::Silver}) {
            w.key(side_name(s));
            opt(w, m.players[idx(s)], [&](const Seat& seat) {
                w.begin_object().key("away");
                opt(w, seat.away, [&](const Away& a) {
                    w.begin_object();
                    w.key("award_at").value(a.award_at);
                    w.key("claim_at").value(a.claim_at);
                    w.end_object();
                });
                if (seat.player.bot) w.key("bot").value(true);
                w.key("id").value(seat.player.id).key("name").value(seat.player.name);
                if (seat.rating) {
                    w.key("rating");
                    write(w, *seat.rating);
                }
                w.end_object();
            });
        }
        w.end_object();
        w.key("preferences").begin_object();
        for (Side s : {Side::Bronze, Side::Silver}) {
            const SeatPrefs& p = m.preferences[idx(s)];
            w.key(side_name(s)).begin_object();
            w.key("more_time").value(p.more_time).key("takeback").value(p.takeback);
            w.end_object();
        }
        w.end_object();
        if (m.invitee) {
            w.key("invitee");
            write(w, *m.invitee);
        }
        w.key("public").value(m.is_public);
        w.key("rated").value(m.rated);
        if (m.ratings) {
            w.key("ratings");
            write(w, *m.ratings);
        }
        w.key("record").begin_object();
        if (m.record.position) w.key("position").value(*m.record.position);
        w.key("setup").begin_object();
        for (Side s : {Side::Bronze, Side::Silver}) {
            w.key(side_name(s));
            opt(w, m.record.setup[idx(s)], [&](const Setup& x) { proto::write(w, x); });
        }
        w.end_object();
        w.key("time_control");
        proto::write(w, m.record.time_control);
        w.key("turns").begin_array();
        for (const Turn& t : m.record.turns) proto::write(w, t);
        w.end_array();
        w.key("variant");
        proto::write(w, m.record.variant);
        w.end_object();
        w.key("spectators").value(m.spectators);
        w.key("stalling");
        opt(w, m.stalling, [&](Side s) { proto::write(w, s); });
        w.key("state").raw(state_to_json(m.state).dump());
        w.key("status").value(status_name(m.status));
        w.key("takeback_offer");
        opt(w, m.takeback_offer, [&](Side s) { proto::write(w, s); });
        w.key("type").value("snapshot");
        write_sides(w, "vacation", m.vacation);
        w.key("version").value(m.version);
    });
}

std::string to_text(const Event& m) {
    return message([&](JsonWriter& w) {
        w.key("clocks");
        write(w, m.clocks);
        w.key("game").value(m.game);
        w.key("kind").value(event_kind(m.body));
        w.key("payload");
        std::visit(PayloadWriter{w}, m.body);
        w.key("type").value("event");
        w.key("version").value(m.version);
    });
}

std::string to_text(const Ack& m) {
    return message([&](JsonWriter& w) {
        if (m.ref) w.key("ref").value(*m.ref);
        w.key("type").value("ack").key("version").value(m.version);
    });
}

std::string to_text(const ErrorMsg& m) {
    return message([&](JsonWriter& w) {
        w.key("code").value(err_name(m.code));
        if (m.game) w.key("game").value(*m.game);
        w.key("message").value(m.message);
        if (m.ref) w.key("ref").value(*m.ref);
        if (m.rule) w.key("rule").value(*m.rule);
        w.key("type").value("error");
        if (m.version) w.key("version").value(*m.version);
    });
}

std::string to_text(const Lobby& m) {
    return message([&](JsonWriter& w) {
        w.key("games").begin_array();
        for (const OpenGame& g : m.games) {
            w.begin_object();
            w.key("code").value(g.code);
            w.key("creator");
            write(w, g.creator);
            if (g.creator_rating) {
                w.key("creator_rating");
                write(w, *g.creator_rating);
            }
            w.key("creator_side");
            proto::write(w, g.creator_side);
            w.key("rated").value(g.rated);
            w.key("time_control");
            proto::write(w, g.time_control);
            w.key("variant");
            proto::write(w, g.variant);
            w.end_object();
        }
        w.end_array();
        w.key("type").value("lobby");
    });
}

std::string to_text(const Pong&) {
    return R"({"type":"pong"})";
}

std::string to_text(const Shutdown& m) {
    return message([&](JsonWriter& w) {
        w.key("message").value(m.message);
        w.key("retry_after_ms").value(m.retry_after_ms);
        w.key("type").value("shutdown");
    });
}

std::string to_text(const QuickMatchWaiting& m) {
    return message([&](JsonWriter& w) {
        w.key("rated").value(m.rated);
        w.key("time_control");
        proto::write(w, m.time_control);
        w.key("type").value("quick_match_waiting");
        w.key("variant");
        proto::write(w, m.variant);
    });
}

std::string to_text(const QuickMatchCancelled&) {
    return R"({"type":"quick_match_cancelled"})";
}

std::string to_text(const Matched& m) {
    return message([&](JsonWriter& w) {
        w.key("code").value(m.code).key("link").value(m.link).key("side");
        proto::write(w, m.side);
        w.key("type").value("matched");
    });
}

std::string to_text(const Notification& m) {
    Json j = m.item.is_object() ? m.item : Json::object();
    j["type"] = "notification";
    return j.dump();
}

std::string to_text(const Live& m) {
    return message([&](JsonWriter& w) {
        w.key("games").begin_array();
        for (const LiveGame& g : m.games) {
            w.begin_object();
            w.key("away").begin_object();
            w.key("bronze").value(g.away[1]).key("silver").value(g.away[0]);
            w.end_object();
            w.key("code").value(g.code);
            w.key("players").begin_object();
            for (Side s : {Side::Bronze, Side::Silver}) {
                w.key(side_name(s));
                opt(w, g.players[idx(s)], [&](const PlayerRef& p) { write(w, p); });
            }
            w.end_object();
            w.key("rated").value(g.rated);
            if (g.rated) {
                w.key("ratings").begin_object();
                for (Side s : {Side::Bronze, Side::Silver}) {
                    w.key(side_name(s));
                    opt(w, g.ratings[idx(s)], [&](const RatingView& r) { write(w, r); });
                }
                w.end_object();
            }
            w.key("score");
            write_score(w, g.score);
            w.key("spectators").value(g.spectators);
            w.key("status").value(status_name(g.status));
            w.key("time_control");
            proto::write(w, g.time_control);
            w.key("to_move");
            proto::write(w, g.to_move);
            w.key("turns").value(g.turns);
            w.key("variant");
            proto::write(w, g.variant);
            w.end_object();
        }
        w.end_array();
        w.key("type").value("live");
    });
}

std::string to_text(const ServerMsg& m) {
    return std::visit([](const auto& x) { return to_text(x); }, m);
}

}  // namespace tf::proto
