#include "server/cluster/cluster_pool.h"

#include "server/session/session.h"

namespace tf::server::cluster_detail {

namespace {
// Matchmaker::range() in SQL, of a seek's row.
const std::string kRange = fmt::format(
    "({} + {} * LEAST({}, GREATEST(0, floor(extract(epoch FROM clock_timestamp() - since)))))",
    Matchmaker::kRangeBase, Matchmaker::kRangePerSecond, Matchmaker::kRangeWidenSeconds);
}  // namespace

std::shared_ptr<Session> SharedPool::seeker(std::uint64_t conn) {
    std::lock_guard lock(m_);
    auto it = seekers_.find(conn);
    if (it == seekers_.end()) return nullptr;
    auto s = it->second.lock();
    if (!s) seekers_.erase(it);
    return s;
}

void SharedPool::closed(std::uint64_t conn, const std::string& player_id) {
    bool sought = false;
    {
        std::lock_guard lock(m_);
        sought = seekers_.erase(conn) > 0;
    }
    if (sought && !player_id.empty())
        core_.db.post([me = core_.me, conn, player_id](pg::Blocking& db) {
            db.exec("DELETE FROM seeks WHERE player_id = $1 AND node = $2 AND conn = $3",
                    {player_id, me, num(std::int64_t(conn))});
        });
}

void SharedPool::seek(const std::shared_ptr<Session>& s, const Player& p,
                      const proto::QuickMatch& m, const std::string& pool,
                      std::optional<int> rating, bool retry) {
    {
        std::lock_guard lock(m_);
        seekers_[s->conn_id()] = s;
    }
    core_.db.post([self = this, w = std::weak_ptr<Session>(s), p, m, pool, rating, retry,
                   conn = s->conn_id()](pg::Blocking& db) {
        std::optional<Found> found;
        bool waiting = false, gone = false;
        try {
            db.transaction([&] {
                db.exec("SELECT pg_advisory_xact_lock(hashtext($1))", {pool});
                std::string mine_range = "100";
                if (retry) {
                    auto me = db.exec(std::string("SELECT ") + kRange +
                                          " FROM seeks WHERE player_id = $1 AND node = $2 AND "
                                          "conn = $3",
                                      {p.id, self->core_.me, num(std::int64_t(conn))})
                                  .rows;
                    if (me.empty()) {  // withdrawn or paired meanwhile
                        gone = true;
                        return;
                    }
                    mine_range = me[0][0].value_or("100");
                } else {
                    db.exec("DELETE FROM seeks WHERE player_id = $1", {p.id});
                }
                const std::string r = rating ? std::to_string(*rating) : std::string();
                auto rows =
                    db.exec(std::string("SELECT player_id, player_name, account, node, conn, "
                                        "rating FROM seeks WHERE pool = $1 AND player_id <> $2 "
                                        "AND EXISTS (SELECT 1 FROM nodes n WHERE n.id = "
                                        "split_part(seeks.node, '@', 1) AND n.lease_until > "
                                        "now()) AND NOT EXISTS (SELECT 1 FROM relations r WHERE "
                                        "r.kind = 'block' AND ((r.player_id = $2 AND r.other_id "
                                        "= seeks.player_id) OR (r.player_id = seeks.player_id "
                                        "AND r.other_id = $2))) AND ") +
                                (rating ? std::string("rating IS NOT NULL AND abs(rating - ") + r +
                                              ") <= GREATEST(" + kRange + ", " + mine_range + ")"
                                        : std::string("rating IS NULL")) +
                                " ORDER BY since LIMIT 1",
                            {pool, p.id})
                        .rows;
                if (!rows.empty()) {
                    Found f;
                    f.player_id = *rows[0][0];
                    f.name = rows[0][1].value_or("");
                    f.account = rows[0][2] == std::optional<std::string>("t");
                    f.node = rows[0][3].value_or("");
                    f.conn = std::stoull(rows[0][4].value_or("0"));
                    if (rows[0][5]) f.rating = std::stoi(*rows[0][5]);
                    db.exec("DELETE FROM seeks WHERE player_id = $1 OR player_id = $2",
                            {f.player_id, p.id});
                    found = f;
                } else if (!retry) {
                    db.exec(
                        "INSERT INTO seeks (player_id, pool, node, conn, player_name, account, "
                        "rating) VALUES ($1, $2, $3, $4, $5, $6, $7)",
                        {p.id, pool, self->core_.me, num(std::int64_t(conn)), p.name,
                         p.account ? "true" : "false",
                         rating ? std::optional<std::string>(r) : std::nullopt});
                    waiting = true;
                } else {
                    waiting = true;
                }
            });
        } catch (...) {
            if (auto s = w.lock())
                s->deliver(std::make_shared<const std::string>(proto::to_text(
                    proto::ErrorMsg{proto::Err::StoreUnavailable,
                                    "the quick-match pool cannot be reached right now; ask again",
                                    std::nullopt, std::nullopt, std::nullopt})));
            throw;
        }
        if (gone) return;
        auto s = w.lock();
        if (!s) return;
        if (found) {
            Seek opp;
            opp.player = Player{found->player_id, found->name, found->account};
            opp.key = pool;
            opp.rating = found->rating;
            std::shared_ptr<Member> who;
            if (found->node == self->core_.me)
                who = self->seeker(found->conn);
            else
                who = self->remote_(found->node, found->conn, opp.player);
            opp.who = who;
            if (!who)  // its connection closed meanwhile: nobody to play; ask again
                return s->games().match_waiting(m);
            s->games().match_found(m, opp);
        } else if (waiting && !retry) {
            s->games().match_waiting(m);
        } else if (waiting) {
            s->games().match_waiting_again(m);
        }
    });
}

void SharedPool::withdraw(const std::string& player_id) {
    core_.db.post([player_id](pg::Blocking& db) {
        db.exec("DELETE FROM seeks WHERE player_id = $1", {player_id});
    });
}

}  // namespace tf::server::cluster_detail
