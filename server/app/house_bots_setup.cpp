#include "server/app/house_bots_setup.h"

#include <spdlog/spdlog.h>

#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <memory>

#include "server/accounts/house_bots.h"
#include "server/base/time.h"
#include "server/session/hub.h"

namespace tf::server {
namespace {

constexpr std::chrono::seconds kRetry{5};

// One level's account: read it; missing, make a player, register it with the mark and mark it
// a bot (each step after the one before is durable); a step that fails starts again from the
// read. Every step runs on the maker's strand: the store may answer create() before it returns,
// and the answer must find `issued` filled (without the strand, another network thread ran it
// first: UBSan saw a null player in CI, 7 Dec).
class Maker : public std::enable_shared_from_this<Maker> {
  public:
    Maker(Hub& hub, int level)
        : hub_(hub),
          level_(level),
          name_(house_bot_name(level)),
          strand_(boost::asio::make_strand(hub.ioc)),
          timer_(strand_) {}

    void start() {
        boost::asio::post(strand_, [self = shared_from_this()] { self->read(); });
    }

  private:
    void read() {
        hub_.store->read_account(
            name_, strand_, [self = shared_from_this()](Read<std::optional<StoredAccount>> r) {
                if (!r.ok()) return self->again(r.error);
                if (!*r.value) return self->create();
                const StoredAccount& a = **r.value;
                if (a.pw_hash != kHouseBotMark)
                    return spdlog::warn(
                        "the account {} is a player's: level {} has no house bot on this server",
                        a.username, self->level_);
                if (!a.bot) return self->mark(a.player_id);
                spdlog::debug("house bot {} (level {}) is there", a.username, self->level_);
            });
    }

    void again(const std::string& why) {
        spdlog::warn("house bot {}: {}; trying again in {} s", name_, why, kRetry.count());
        timer_.expires_after(kRetry);
        timer_.async_wait([self = shared_from_this()](boost::system::error_code ec) {
            if (!ec) self->read();
        });
    }

    // On the strand again: the store calls back on its own thread.
    template <class F>
    void then(F f) {
        boost::asio::post(strand_, std::move(f));
    }

    void create() {
        auto issued = std::make_shared<Identity::Issued>();
        *issued = hub_.identity.create(
            name_, [self = shared_from_this(), issued](std::optional<std::string> error) {
                self->then([self, issued, error] {
                    if (error) return self->again(*error);
                    self->register_account(issued->player->id);
                });
            });
    }

    void register_account(const std::string& player_id) {
        AccountWrite w;
        w.kind = AccountWrite::Kind::Register;
        w.player_id = player_id;
        w.username = name_;
        w.pw_hash = kHouseBotMark;
        hub_.store->write_account(w, [self = shared_from_this(), player_id](AccountResult r) {
            self->then([self, player_id, r] {
                if (r.conflict) return self->read();  // another node made it first
                if (!r.ok) return self->again(r.error);
                self->mark(player_id);
            });
        });
    }

    void mark(const std::string& player_id) {
        hub_.social->run<ModerationDb::BotMark>(
            [player_id](SocialDb& db) {
                return db.moderation().make_bot(player_id, epoch_ms(), "(the server)");
            },
            strand_,
            [self = shared_from_this()](Read<ModerationDb::BotMark> r) {
                if (!r.ok()) return self->again(r.error);
                spdlog::info("house bot {} plays at level {}", self->name_, self->level_);
            },
            false);
    }

    Hub& hub_;
    const int level_;
    const std::string name_;
    boost::asio::strand<boost::asio::io_context::executor_type> strand_;
    boost::asio::steady_timer timer_;
};

}  // namespace

void make_house_bots(Hub& hub) {
    if (!hub.social) return;  // --store memory keeps no accounts
    for (int level = 1; level <= kHouseBotLevels; ++level)
        std::make_shared<Maker>(hub, level)->start();
}

}  // namespace tf::server
