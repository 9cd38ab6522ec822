#include "server/session/peers.h"

#include "server/session/hub.h"
#include "server/session/session.h"

namespace tf::server {

// Every game of this node's players is in its index (a seat is taken in a room of this node).
void SingleNode::seated_games(const std::string& player_id, Store::Executor,
                              std::function<void(std::vector<std::string>)> then) {
    then(hub_.players.games_of(player_id));
}

void SingleNode::open_elsewhere(const std::string&, const std::string&, Store::Executor,
                                Store::Then<OpenGameCounts> then) {
    then(Read<OpenGameCounts>{OpenGameCounts{}, {}, false});
}

void SingleNode::seek(const std::shared_ptr<Session>& s, const Player& p,
                      const proto::QuickMatch& m, const std::string& pool,
                      std::optional<int> rating) {
    if (auto opponent = hub_.matchmaker.pair(p, pool, s, rating, std::chrono::steady_clock::now(),
                                             s->blocked()))
        return s->games().match_found(m, std::move(*opponent));
    s->games().match_waiting(m);
}

void SingleNode::retry_seek(const std::shared_ptr<Session>& s, const Player& p,
                            const proto::QuickMatch& m, const std::string&, std::optional<int>) {
    if (auto opponent = hub_.matchmaker.retry(p.id))
        return s->games().match_found(m, std::move(*opponent));
    if (hub_.matchmaker.waiting_for(p.id)) return s->games().match_waiting_again(m);
    s->games().match_done();
}

void SingleNode::withdraw(const std::string& player_id) {
    hub_.matchmaker.withdraw(player_id);
}

}  // namespace tf::server
