#include "server/cluster/cluster_routes.h"

#include <nlohmann/json.hpp>

#include "server/cluster/cluster_pool.h"
#include "server/room/room.h"
#include "server/session/hub.h"
#include "server/session/session.h"

namespace tf::server::cluster_detail {

using nlohmann::json;

// Keys are sorted as serialize_server.cpp writes them: "game" is the first such key, "type" and
// "version" the last two.
std::optional<Versioned> versioned(std::string_view m) {
    Versioned v;
    auto t = m.rfind(",\"type\":\"");
    if (t == std::string_view::npos) return std::nullopt;
    std::string_view tail = m.substr(t + 9);
    if (tail.rfind("event\",\"version\":", 0) == 0)
        tail.remove_prefix(17);
    else if (tail.rfind("snapshot\",\"version\":", 0) == 0) {
        tail.remove_prefix(20);
        v.snapshot = true;
    } else
        return std::nullopt;
    std::int64_t n = 0;
    std::size_t i = 0;
    for (; i < tail.size() && tail[i] >= '0' && tail[i] <= '9'; ++i) n = n * 10 + (tail[i] - '0');
    if (i == 0) return std::nullopt;
    v.version = n;
    auto g = m.find("\"game\":\"");
    if (g == std::string_view::npos) return std::nullopt;
    auto e = m.find('"', g + 8);
    if (e == std::string_view::npos) return std::nullopt;
    v.game = std::string(m.substr(g + 8, e - g - 8));
    v.unversioned = !v.snapshot && (m.find("\"kind\":\"spectators\"") != std::string_view::npos ||
                                    m.find("\"kind\":\"ratings\"") != std::string_view::npos ||
                                    m.find("\"room\":\"spectators\"") != std::string_view::npos);
    return v;
}

namespace {

// The game of an owner's notice that it is paused (store_failed or in_doubt, which name it).
std::optional<std::string> paused_game(std::string_view m) {
    if (m.rfind("{\"code\":\"store_failed\"", 0) != 0 && m.rfind("{\"code\":\"in_doubt\"", 0) != 0)
        return std::nullopt;
    auto g = m.find("\"game\":\"");
    if (g == std::string_view::npos) return std::nullopt;
    auto e = m.find('"', g + 8);
    if (e == std::string_view::npos) return std::nullopt;
    return std::string(m.substr(g + 8, e - g - 8));
}

std::string watch_text(const std::string& code, std::int64_t since) {
    json j{{"type", "watch"}, {"code", code}};
    if (since >= 0) j["since_version"] = since;
    return j.dump();
}

}  // namespace

Routes::Routes(Core& core, SharedPool& pool, std::function<void(pg::Blocking&)> claim)
    : core_(core),
      hub_(core.hub),
      node_(core.node),
      me_(core.me),
      db_(core.db),
      bus_(core.bus),
      strand_(core.strand),
      pool_(pool),
      claim_(std::move(claim)) {}

// This node serves `code` now: its own connections that reached the game through another
// node are served here from now on, and those that watched it are caught up at once from
// the last version they saw (PROTOCOL.md "With several nodes": the missed events follow,
// without the client asking). The "moved" announcement does this on the other nodes; this
// node ignores its own. The requests the old owner left unanswered go with them.
void Routes::adopt(const std::string& code) {
    std::vector<std::pair<std::shared_ptr<Session>, std::vector<std::string>>> here;
    {
        std::lock_guard lock(m_);
        for (auto& [conn, link] : links_) {
            auto it = link.routes.find(code);
            if (it == link.routes.end()) continue;
            Route& r = it->second;
            std::vector<std::string> texts;
            if (r.watching) {
                texts.push_back(catch_up_text(code, r));
                ++stats_.catchups;
            }
            // What the old owner left unanswered runs here (a move it had applied is
            // answered with its ack again, Room::applied_before); its late answers to
            // them, should it wake, are dropped.
            take_back(r);
            for (auto& q : r.queue) {
                if (q.seq) link.answered.insert(q.seq);
                if (q.key != kSyncKey || q.seq) texts.push_back(std::move(q.text));
            }
            if (auto s = link.session.lock(); s && !texts.empty())
                here.emplace_back(std::move(s), std::move(texts));
            link.routes.erase(it);
        }
    }
    for (auto& [s, texts] : here) s->handle_here(std::move(texts));
}

// What a route's client missed, asked of the game's (new) owner: the events after the last
// version passed on, or the whole snapshot when the game was paused there (PROTOCOL.md:
// "after a suspension the game sends its resume snapshot", on whatever node it resumes).
std::string Routes::catch_up_text(const std::string& code, const Route& r) {
    return watch_text(code, r.suspended ? -1 : r.last);
}

// Tells each node serving games to our connections which of them are still open.
void Routes::send_alive() {
    std::map<std::string, std::vector<std::uint64_t>> by_node;
    {
        std::lock_guard lock(m_);
        for (auto& [conn, link] : links_)
            for (auto& [code, r] : link.routes)
                if (!r.owner.empty()) by_node[r.owner].push_back(conn);
    }
    for (auto& [n, conns] : by_node)
        bus_->publish(channel_of(n), bus::encode(bus::Alive{me_, std::move(conns)}));
}

// Gaps still open 2 s after their catch-up was asked (it was lost with the bus, or the owner
// moved meanwhile): asked again.
void Routes::ask_again(SteadyTime now) {
    std::lock_guard lock(m_);
    for (auto& [conn, link] : links_)
        for (auto& [code, r] : link.routes)
            if (!r.held.empty() && now - r.asked > std::chrono::seconds(2))
                ask_missing_locked(conn, code, r);
}

void Routes::forward(const std::shared_ptr<Session>& from, const Player& p, const std::string& code,
                     std::string text, const proto::ClientMsg& msg) {
    std::string key = std::visit(
        [](const auto& m) -> std::string {
            if constexpr (requires { m.ref; }) {
                if constexpr (std::is_same_v<decltype(m.ref), std::optional<std::string>>)
                    return m.ref.value_or("");
            }
            return "";
        },
        msg);
    if (key.empty() &&
        (std::holds_alternative<proto::Watch>(msg) || std::holds_alternative<proto::JoinGame>(msg)))
        key = kSyncKey;
    std::lock_guard lock(m_);
    Link& link = links_[from->conn_id()];
    link.session = from;
    link.player = p;
    Route& r = link.routes[code];
    // The client's own watch says where it stands: what follows starts there (its
    // since_version, or the snapshot it asks for).
    if (auto* w = std::get_if<proto::Watch>(&msg)) {
        r.last = w->since_version.value_or(-1);
        r.held.clear();
    }
    r.queue.push_back(Req{link.next_seq++, std::move(text), std::move(key)});
    pump(from->conn_id(), code, r);
}

// The route of a connection's game, or null (m_ held).
Routes::Route* Routes::route_locked(std::uint64_t conn, const std::string& code) {
    auto l = links_.find(conn);
    if (l == links_.end()) return nullptr;
    auto it = l->second.routes.find(code);
    return it == l->second.routes.end() ? nullptr : &it->second;
}

// Sends what waits, or looks the owner up (m_ held).
void Routes::pump(std::uint64_t conn, const std::string& code, Route& r) {
    if (r.resolving) return;
    if (r.owner.empty()) return resolve(conn, code, r, std::chrono::milliseconds(0));
    while (!r.queue.empty()) {
        Req req = std::move(r.queue.front());
        r.queue.pop_front();
        const Link& link = links_[conn];
        // A watch or a join runs again (it only sends where the game stands).
        const bool sync = req.key == kSyncKey;
        bus::Req h{me_,
                   conn,
                   code,
                   sync ? 0 : req.seq,
                   sync ? std::string() : req.key,
                   link.player.id,
                   link.player.name,
                   link.player.account,
                   link.player.bot};
        ++stats_.forwarded_out;
        spdlog::debug("cluster: conn {} request #{} ({}) about {} to {}", conn, h.seq, h.ref, code,
                      r.owner);
        bus_->publish(channel_of(r.owner), bus::encode(h, req.text),
                      [self = shared_from_this(), conn, code, gen = r.gen](long n) {
                          self->sent(conn, code, gen, n);
                      });
        if (!req.key.empty()) {
            r.unanswered.emplace_back(req.key, req);
            if (r.unanswered.size() > 32) r.unanswered.pop_front();
        }
        r.inflight.push_back(std::move(req));
    }
}

// Before sending a route's requests to another owner (or again after an outage): what the
// old one may not have handled goes first, in the order it was sent: the requests still in
// flight and those whose answer never came.
void Routes::take_back(Route& r) {
    ++r.gen;
    std::deque<Req> again;
    for (auto& [ref, req] : r.unanswered) again.push_back(std::move(req));
    for (auto& t : r.inflight)
        if (t.key.empty()) again.push_back(std::move(t));
    r.unanswered.clear();
    r.inflight.clear();
    for (auto it = again.rbegin(); it != again.rend(); ++it) r.queue.push_front(std::move(*it));
}

void Routes::sent(std::uint64_t conn, const std::string& code, std::uint64_t gen, long receivers) {
    std::lock_guard lock(m_);
    Route* route = route_locked(conn, code);
    if (!route || route->gen != gen) return;
    Route& r = *route;
    if (receivers > 0) {
        if (!r.inflight.empty()) r.inflight.pop_front();
        return;
    }
    // Nobody listens on the owner's channel (it died, or the bus is down): the requests go
    // again, in order, once the owner is known again.
    reroute(conn, code, r, std::chrono::milliseconds(250));
}

// The route's owner is unknown again: what it may not have handled goes first to the next
// one, looked up after `delay` (m_ held).
void Routes::reroute(std::uint64_t conn, const std::string& code, Route& r,
                     std::chrono::milliseconds delay) {
    take_back(r);
    r.owner.clear();
    resolve(conn, code, r, delay);
}

// Looks the game's owner up in PostgreSQL after `delay` (m_ held).
void Routes::resolve(std::uint64_t conn, const std::string& code, Route& r,
                     std::chrono::milliseconds delay) {
    r.resolving = true;
    auto job = [self = shared_from_this(), conn, code](pg::Blocking& db) {
        std::optional<std::string> owner;
        bool live = false, found = false, unfinished = false;
        try {
            auto rows = db.exec(
                              "SELECT g.owner, g.status IN ('open', 'playing'), EXISTS "
                              "(SELECT 1 FROM nodes n WHERE n.id = g.owner AND "
                              "n.lease_until > now()) FROM games g WHERE g.code = $1",
                              {code})
                            .rows;
            if (!rows.empty()) {
                found = true;
                owner = rows[0][0];
                unfinished = rows[0][1] == std::optional<std::string>("t");
                live = rows[0][2] == std::optional<std::string>("t");
            }
            if (found && unfinished && !live) self->claim_(db);  // nobody serves it
        } catch (const std::exception& e) {
            spdlog::warn("cluster: looking up game {}: {}", code, e.what());
            asio::post(self->strand_, [self, conn, code] { self->resolved(conn, code, {}); });
            throw;
        }
        Lookup res{found, unfinished, live, owner.value_or("")};
        asio::post(self->strand_, [self, conn, code, res] { self->resolved(conn, code, res); });
    };
    if (delay.count() == 0) return db_.post(std::move(job));
    auto t = std::make_shared<asio::steady_timer>(strand_, delay);
    t->async_wait([self = shared_from_this(), t, job](boost::system::error_code) mutable {
        self->db_.post(std::move(job));
    });
}

void Routes::resolved(std::uint64_t conn, const std::string& code, std::optional<Lookup> res) {
    std::shared_ptr<Session> session;
    std::vector<std::string> here;
    std::string error;
    proto::Err code_err = proto::Err::NoSuchGame;
    {
        std::lock_guard lock(m_);
        auto l = links_.find(conn);
        if (l == links_.end()) return;
        auto it = l->second.routes.find(code);
        if (it == l->second.routes.end()) return;
        Route& r = it->second;
        r.resolving = false;
        session = l->second.session.lock();
        if (!session) return;
        const bool mine = res && res->owner == node_;
        if (res && res->found && !mine && res->live && !res->owner.empty()) {
            r.owner = res->owner;
            r.attempts = 0;
            if (r.watching) {
                r.queue.push_front(Req{0, catch_up_text(code, r), kSyncKey});
                ++stats_.catchups;
            }
            pump(conn, code, r);
            return;
        }
        if (mine && hub_.directory.find(code)) {  // claimed here meanwhile
            for (auto& q : r.queue) here.push_back(std::move(q.text));
            if (r.watching) here.insert(here.begin(), catch_up_text(code, r));
            l->second.routes.erase(it);
        } else if (res && (!res->found || (!res->unfinished && !res->live) ||
                           (mine && !res->unfinished))) {
            error = "no game with code " + code;
            l->second.routes.erase(it);
        } else if (++r.attempts < 120) {  // ~30 s: the owner's lease runs out meanwhile
            resolve(conn, code, r, std::chrono::milliseconds(250));
            return;
        } else {
            code_err = proto::Err::StoreUnavailable;
            error = "the server holding game " + code +
                    " cannot be reached right now; try again in a moment";
            l->second.routes.erase(it);
        }
    }
    if (!here.empty()) return session->handle_here(std::move(here));
    if (!error.empty())
        session->deliver(std::make_shared<const std::string>(proto::to_text(
            proto::ErrorMsg{code_err, error, std::nullopt, std::nullopt, std::nullopt})));
}

// What the owner sends connections of ours: one message for all those it goes to (a
// game's event for its watchers here crosses the bus once, "conns"), or one ("conn").
void Routes::on_out(const bus::Out& m, std::string_view body) {
    const auto seq = m.seq;
    const std::string& from = m.from;
    const auto& conns = m.conns;
    if (m.to != me_) {  // this node's previous life
        for (auto conn : conns) bus_->publish(channel_of(from), bus::encode(bus::Gone{m.to, conn}));
        return;
    }
    const auto v = versioned(body);
    const auto msg = std::make_shared<const std::string>(body);  // one copy for them all
    for (auto conn : conns) out_to(conn, seq, from, v, msg);
}

void Routes::out_to(std::uint64_t conn, std::uint64_t seq, const std::string& from,
                    const std::optional<Versioned>& v, const Msg& body) {
    std::shared_ptr<Session> session;
    bool matched = false;
    std::vector<Msg> pass;  // what the client gets of it, in order
    {
        std::lock_guard lock(m_);
        auto l = links_.find(conn);
        if (l != links_.end()) session = l->second.session.lock();
        if (!session) session = pool_.seeker(conn);
        if (session && seq && !answer_locked(conn, seq, from)) return;
        if (session) {
            if (v && !v->unversioned) {
                Link& link = links_[conn];
                link.session = session;
                Route& r = link.routes[v->game];
                if (r.owner.empty() && !r.resolving) r.owner = from;
                r.watching = true;
                std::erase_if(r.unanswered, [](const auto& u) { return u.first == kSyncKey; });
                order_locked(conn, v->game, r, *v, body, pass);
            } else {
                if (auto game = paused_game(*body))
                    if (Route* r = route_locked(conn, *game)) r->suspended = true;
                pass.push_back(body);
            }
            matched = body->rfind("{\"code\":", 0) == 0 &&
                      body->find("\"type\":\"matched\"") != std::string::npos;
        }
    }
    if (!session) {  // closed meanwhile: the owner forgets it
        bus_->publish(channel_of(from), bus::encode(bus::Gone{me_, conn}));
        return;
    }
    if (matched) session->games().match_done();
    for (auto& m : pass) session->deliver(std::move(m));
}

// The answer to request `seq` of connection `conn` came from node `from`: false when it is
// not to be passed on (m_ held). Once per request: a second answer (the owner answered a
// re-send from its memory while the first was on its way) is dropped, and so is one from a
// node that no longer serves the game while the request went again to its new owner (a
// stalled owner woken after the takeover, refusing what the new owner ran).
bool Routes::answer_locked(std::uint64_t conn, std::uint64_t seq, const std::string& from) {
    auto l = links_.find(conn);
    if (l == links_.end()) return true;
    Link& link = l->second;
    if (link.answered.count(seq)) {
        ++stats_.answers_dropped;
        return false;
    }
    for (auto& [code, r] : link.routes) {
        auto is = [seq](const auto& u) { return u.second.seq == seq; };
        auto it = std::find_if(r.unanswered.begin(), r.unanswered.end(), is);
        const bool queued = std::any_of(r.queue.begin(), r.queue.end(),
                                        [seq](const Req& q) { return q.seq == seq; });
        if (it == r.unanswered.end() && !queued) continue;
        if (!r.owner.empty() && r.owner != from) {
            ++stats_.answers_dropped;
            return false;
        }
        if (it != r.unanswered.end()) r.unanswered.erase(it);
        std::erase_if(r.queue, [seq](const Req& q) { return q.seq == seq; });
        break;
    }
    link.answered.insert(seq);
    while (link.answered.size() > 256) link.answered.erase(link.answered.begin());
    return true;
}

// A versioned event or a snapshot of `code` for a route's client (m_ held): passed on in
// version order without a gap. A snapshot starts the count again; an event at or below the
// last one passed on is a repeat (a catch-up overlapping the live events) and dropped; one
// above the next waits in `held` while the missing ones are asked of the owner.
void Routes::order_locked(std::uint64_t conn, const std::string& code, Route& r, const Versioned& v,
                          const Msg& body, std::vector<Msg>& pass) {
    Msg msg = body;
    if (v.snapshot) {
        r.last = v.version;
        r.suspended = body->find("\"status\":\"suspended\"") != std::string::npos;
        pass.push_back(std::move(msg));
    } else if (r.last < 0 || v.version == r.last + 1) {
        r.last = v.version;
        pass.push_back(std::move(msg));
    } else if (v.version <= r.last) {
        return;
    } else {
        const bool first = r.held.empty();
        r.held.emplace(v.version, std::move(msg));
        if (r.held.size() > kHeldMax) {  // far behind: start again from a snapshot
            r.held.clear();
            r.last = -1;
            r.suspended = true;
        }
        if (first) ask_missing_locked(conn, code, r);
        return;
    }
    while (!r.held.empty() && r.held.begin()->first <= r.last + 1) {
        auto it = r.held.begin();
        if (it->first == r.last + 1) {
            r.last = it->first;
            pass.push_back(std::move(it->second));
        }
        r.held.erase(it);
    }
}

// The owner is asked for what a route's client missed (m_ held).
void Routes::ask_missing_locked(std::uint64_t conn, const std::string& code, Route& r) {
    r.asked = std::chrono::steady_clock::now();
    r.queue.push_front(Req{0, catch_up_text(code, r), kSyncKey});
    ++stats_.catchups;
    pump(conn, code, r);
}

// The owner does not hold the game (any more): look it up again.
void Routes::on_notmine(const bus::NotMine& m) {
    if (m.to != me_) return;  // for this node's previous life
    const auto conn = m.conn;
    const std::string &code = m.code, &from = m.from;
    std::lock_guard lock(m_);
    Route* route = route_locked(conn, code);
    if (!route || route->owner != from || route->resolving) return;
    reroute(conn, code, *route, std::chrono::milliseconds(100));
}

// The owner had dropped the connection's stand-in: a watching route asks for what it missed
// (every route of the connection served by that owner when no game is named).
void Routes::on_rewatch(const bus::Rewatch& m) {
    if (m.to != me_) return;
    std::lock_guard lock(m_);
    auto l = links_.find(m.conn);
    if (l == links_.end()) return;
    for (auto& [code, r] : l->second.routes) {
        if (!m.code.empty() && code != m.code) continue;
        if (!r.watching || r.resolving || r.owner != m.from) continue;
        r.queue.push_front(Req{0, catch_up_text(code, r), kSyncKey});
        ++stats_.catchups;
        pump(m.conn, code, r);
    }
}

void Routes::on_close(const bus::Close& m) {
    if (m.to != me_) return;
    std::shared_ptr<Session> s;
    {
        std::lock_guard lock(m_);
        auto l = links_.find(m.conn);
        if (l != links_.end()) s = l->second.session.lock();
    }
    if (s) s->close(m.reason, false);
}

// A game changed hands: requests go to the new owner, which replays what we missed.
void Routes::on_moved(const std::string& code, const std::string& owner) {
    std::lock_guard lock(m_);
    for (auto& [conn, link] : links_) {
        auto it = link.routes.find(code);
        if (it == link.routes.end()) continue;
        Route& r = it->second;
        if (r.resolving) continue;  // also from the same node id: a restarted node's new life
        take_back(r);
        r.owner = owner;
        r.attempts = 0;
        if (r.watching) {
            r.queue.push_front(Req{0, catch_up_text(code, r), kSyncKey});
            ++stats_.catchups;
        }
        pump(conn, code, r);
    }
}

// Node `from` was cut off from the bus and is back: what it published meanwhile (its games'
// events, the answers to our requests) never came. Its routes catch up and send again what
// is unanswered (it answers those from memory, PROTOCOL.md "With several nodes").
void Routes::on_back(const std::string& from) {
    if (from.empty() || from == node_) return;
    std::lock_guard lock(m_);
    for (auto& [conn, link] : links_)
        for (auto& [code, r] : link.routes) {
            if (r.owner != from || r.resolving) continue;
            take_back(r);
            if (r.watching) {
                r.queue.push_front(Req{0, catch_up_text(code, r), kSyncKey});
                ++stats_.catchups;
            }
            pump(conn, code, r);
        }
}

void Routes::closed(std::uint64_t conn) {
    std::set<std::string> owners;
    {
        std::lock_guard lock(m_);
        auto l = links_.find(conn);
        if (l != links_.end()) {
            for (auto& [code, r] : l->second.routes)
                if (!r.owner.empty()) owners.insert(r.owner);
            links_.erase(l);
        }
    }
    for (const auto& n : owners) bus_->publish(channel_of(n), bus::encode(bus::Gone{me_, conn}));
}

void Routes::bus_up() {
    std::lock_guard lock(m_);
    for (auto& [conn, link] : links_)
        for (auto& [code, r] : link.routes)
            if (!r.resolving) reroute(conn, code, r, std::chrono::milliseconds(0));
}

void Routes::every_2s(SteadyTime now) {
    send_alive();
    ask_again(now);
}

void Routes::clear() {
    std::lock_guard lock(m_);
    links_.clear();
}

Routes::Stats Routes::stats() const {
    std::lock_guard lock(m_);
    Stats s = stats_;
    for (auto& [c, l] : links_) s.routes += l.routes.size();
    return s;
}

}  // namespace tf::server::cluster_detail
