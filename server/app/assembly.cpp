#include "server/app/assembly.h"

#include <spdlog/pattern_formatter.h>
#include <spdlog/spdlog.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <csignal>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "proto/messages.h"
#include "server/app/house_bots_setup.h"
#include "server/app/startup_wait.h"
#include "server/app/systemd.h"
#include "server/base/io_thread.h"
#include "server/cluster/bus.h"
#include "server/cluster/cluster.h"
#include "server/net/client_address.h"
#include "server/room/room.h"
#include "server/session/hub.h"
#include "server/social/vacations.h"
#include "server/store/faulty_store.h"
#include "server/store/pg_schema.h"
#include "server/store/pg_store.h"
#include "server/store/sqlite_store.h"
#include "server/store/tournament_db.h"
#include "server/web/listener.h"
#include "server/web/transports.h"

#ifndef TF_VERSION
#define TF_VERSION "unknown"
#endif

namespace tf::server {

namespace {

namespace net = boost::asio;

// Log lines for the journal: the syslog priority first ("<4>" = warning), so that journalctl
// shows and filters levels (-p warning); the journal stamps the time itself.
class SyslogPriority : public spdlog::custom_flag_formatter {
  public:
    void format(const spdlog::details::log_msg& msg, const std::tm&,
                spdlog::memory_buf_t& dest) override {
        static constexpr const char* kPriority[] = {"<7>", "<7>", "<6>", "<4>",
                                                    "<3>", "<2>", "<6>"};
        const char* p = kPriority[std::min<std::size_t>(std::size_t(msg.level), 6)];
        dest.append(p, p + 3);
    }
    std::unique_ptr<custom_flag_formatter> clone() const override {
        return std::make_unique<SyslogPriority>();
    }
};

// Descriptors: the soft limit raised to the hard one (as nginx and Go do), and the connections
// capped below it, so that accept() never finds none left.
void raise_descriptor_limit(Config& cfg) {
    rlimit nofile{};
    if (getrlimit(RLIMIT_NOFILE, &nofile) != 0) return;
    if (nofile.rlim_cur < nofile.rlim_max) {
        nofile.rlim_cur = nofile.rlim_max;
        if (setrlimit(RLIMIT_NOFILE, &nofile) != 0) getrlimit(RLIMIT_NOFILE, &nofile);
    }
    if (cfg.max_connections == 0)
        cfg.max_connections = default_max_connections(
            nofile.rlim_cur == RLIM_INFINITY ? 1 << 20 : long(nofile.rlim_cur));
    spdlog::info("connections: at most {} in all (descriptor limit {}), {} per address{}",
                 cfg.max_connections, (long long)nofile.rlim_cur, cfg.max_connections_per_ip,
                 cfg.trusted_proxies.empty() ? "" : "; trusted proxies name their clients");
}

// PostgreSQL may not be up yet (a machine booting, a failover): the node waits for it, holding
// its HTTP port to answer 503 meanwhile (server/app/startup_wait.h), and keeps that answer
// until its games are back. Null without PostgreSQL; `exit` set when the node must not go on
// (0: stopped by a signal while waiting).
std::unique_ptr<StartupResponder> wait_for_database(Config& cfg, std::optional<int>& exit) {
    if (cfg.store != "postgres" || cfg.database_url.empty()) return nullptr;
    std::unique_ptr<StartupResponder> waiting;
    try {
        waiting = std::make_unique<StartupResponder>(cfg.bind, cfg.http_port);
    } catch (const std::exception& e) {
        spdlog::critical("cannot listen: {}", e.what());
        exit = 1;
        return nullptr;
    }
    cfg.http_port = waiting->port();
    spdlog::info("startup: HTTP port {} answers 503 until the games are back", cfg.http_port);
    static std::atomic<bool> stop_waiting{false};
    auto previous_int = std::signal(SIGINT, [](int) { stop_waiting = true; });
    auto previous_term = std::signal(SIGTERM, [](int) { stop_waiting = true; });
    const bool reached = wait_until_reached(
        [&](std::string& why) {
            try {
                pg::Blocking probe(cfg.database_url);
                return true;
            } catch (const std::exception& e) {
                why = e.what();
                return false;
            }
        },
        cfg.fail_fast, [] { return stop_waiting.load(); }, waiting.get());
    std::signal(SIGINT, previous_int);
    std::signal(SIGTERM, previous_term);
    if (!reached) {
        exit = stop_waiting ? 0 : 1;
        return nullptr;
    }
    waiting->set_reason("starting: the games are being restored");
    return waiting;
}

// The store --store names, wrapped in the fault injector under --fault-file. Throws.
std::unique_ptr<Store> open_store(const Config& cfg) {
    std::unique_ptr<Store> store;
    if (cfg.store == "memory") {
        store = std::make_unique<NullStore>();
        spdlog::warn("store: memory only, games do not survive a restart (--store memory)");
    } else if (cfg.store == "postgres") {
        if (cfg.database_url.empty())
            throw StoreError("--store postgres needs --database-url (or TRUNKFIELD_DATABASE_URL)");
        store = open_pg_store({cfg.database_url, cfg.accept_unsafe_database});
        spdlog::info("store: PostgreSQL ({})", redact_url(cfg.database_url));
    } else {
        store = open_sqlite_store(cfg.data_dir, cfg.sync == "full"     ? SyncLevel::Full
                                                : cfg.sync == "normal" ? SyncLevel::Normal
                                                                       : SyncLevel::Off);
        spdlog::info("store: {}/trunkfield.db (sync {})", cfg.data_dir, cfg.sync);
    }
    if (!cfg.fault_file.empty()) {
        spdlog::warn("store: injecting the faults named in {} (--fault-file, tests only)",
                     cfg.fault_file);
        store = std::make_unique<FaultyStore>(std::move(store), cfg.fault_file);
    }
    return store;
}

// The puzzles beside the store (none for --store memory), on a connection of their own.
std::unique_ptr<PuzzleService> open_puzzles(const Config& cfg, Store& store) {
    if (cfg.store == "memory") return nullptr;
    MineOptions mine;
    mine.on = cfg.mine_puzzles;
    mine.every_seconds = cfg.mine_puzzles_every;
    PuzzleService::Open open;
    if (cfg.store == "postgres")
        open = [url = cfg.database_url] { return open_pg_puzzles(url); };
    else
        open = [dir = cfg.data_dir] { return open_sqlite_puzzles(dir); };
    return std::make_unique<PuzzleService>(std::move(open), store, mine);
}

// The mailer's settings from the command line: the links' base and the sender's address
// default to the HTTP port's address.
MailConfig mail_config(const Config& cfg) {
    MailConfig m;
    m.smtp_url = cfg.smtp_url;
    m.site = cfg.public_url.empty() ? "http://" + cfg.bind + ":" + std::to_string(cfg.http_port)
                                    : cfg.public_url;
    while (!m.site.empty() && m.site.back() == '/') m.site.pop_back();
    auto host = m.site.substr(m.site.find("://") == std::string::npos ? 0 : m.site.find("://") + 3);
    host = host.substr(0, host.find_first_of(":/"));
    m.host = host.empty() ? "localhost" : host;
    m.from = cfg.mail_from.empty() ? "trunkfield@" + m.host : cfg.mail_from;
    m.poll_seconds = cfg.mail_poll_seconds;
    return m;
}

// The notifications of the games tournaments paired, sent once a game has both seats stored
// (RoomServices::started): a player told earlier could watch it before its seat is taken.
class TournamentNotices {
  public:
    void expect(const std::string& code, std::vector<std::pair<std::string, nlohmann::json>> n) {
        std::lock_guard lock(m_);
        pending_[code] = std::move(n);
    }
    std::vector<std::pair<std::string, nlohmann::json>> take(const std::string& code) {
        std::lock_guard lock(m_);
        auto it = pending_.find(code);
        if (it == pending_.end()) return {};
        auto out = std::move(it->second);
        pending_.erase(it);
        return out;
    }

  private:
    std::mutex m_;
    std::map<std::string, std::vector<std::pair<std::string, nlohmann::json>>> pending_;
};

// A game a tournament paired: made under the pairing's code with both seats taken; both
// players are told once it is stored so (a notification tournament_game: PROTOCOL.md
// "Tournaments").
void make_tournament_game(Hub& hub, TournamentNotices& notices, TournamentService::MakeGame g) {
    std::vector<std::pair<std::string, nlohmann::json>> tell;
    for (const Side side : {Side::Silver, Side::Bronze}) {
        const Player& me = side == Side::Silver ? g.silver : g.bronze;
        const Player& them = side == Side::Silver ? g.bronze : g.silver;
        nlohmann::json opponent{{"id", them.id}, {"name", them.name}};
        if (them.bot) opponent["bot"] = true;
        nlohmann::json fields{{"game", g.code},
                              {"side", side_name(side)},
                              {"opponent", std::move(opponent)},
                              {"tournament", {{"id", g.tournament}, {"name", g.name}}}};
        if (g.round) fields["round"] = g.round;
        tell.emplace_back(me.id, std::move(fields));
    }
    if (g.made) {  // stored already, by a director that may not have told them
        for (auto& [player, fields] : tell)
            if (hub.social) hub.social->notify_once(player, "tournament_game", std::move(fields));
        return;
    }
    notices.expect(g.code, std::move(tell));
    auto ex = boost::asio::make_strand(hub.ioc);
    hub.directory.create_as(
        g.code, g.params, g.silver, ex,
        [&notices, code = g.code, tournament = g.tournament](std::shared_ptr<Room> room) {
            if (!room) {
                notices.take(code);
                spdlog::info(
                    "tournament {}: game {} is there already (or the store "
                    "cannot say)",
                    tournament, code);
                return;
            }
            room->open();  // both seats (params.opponent), in one write
        });
}

// The notifications beside the store (none for --store memory, which keeps no accounts), on a
// connection of their own; delivered to the player's connections here and on the other nodes.
void open_social(Hub& hub, const std::shared_ptr<TournamentNotices>& notices) {
    if (hub.cfg.store == "memory") return;
    SocialService::Open plain;
    if (hub.cfg.store == "postgres")
        plain = [url = hub.cfg.database_url] { return open_pg_social(url); };
    else
        plain = [dir = hub.cfg.data_dir] { return open_sqlite_social(dir); };
    MailRules rules;
    rules.on = !hub.cfg.smtp_url.empty();
    rules.turn_gap_ms = std::int64_t(hub.cfg.mail_turn_gap_seconds * 1000);
    rules.digest_ms = std::int64_t(hub.cfg.mail_digest_seconds * 1000);
    SocialService::Open open = [plain, rules] {
        auto db = plain();
        db->mail().set_mail_rules(rules);
        return db;
    };
    hub.social = std::make_unique<SocialService>(
        std::move(open),
        [&hub](const std::string& player, const std::string& text) {
            auto msg = std::make_shared<const std::string>(text);
            for (auto& c : hub.players.connections(player)) c->deliver(msg);
            hub.peers->tell_player(player, text);
        },
        [&hub](const std::string& player) {
            for (auto& c : hub.players.connections(player)) c->relations_changed();
            hub.peers->relations_changed(player);
        },
        [&hub](const std::string& player) {
            const std::string reason = "the account was closed by a moderator";
            hub.identity.forget_player(player);
            for (auto& c : hub.players.connections(player)) c->end(reason, true);
            hub.peers->end_player(player, reason, true);
        });
    if (rules.on) hub.social->start_mail(mail_config(hub.cfg), plain);
    hub.services.started = [&hub, notices](const Player& p, const std::string& code) {
        if (hub.social && p.account) hub.social->tell_followers(p.id, p.name, code);
        for (auto& [player, fields] : notices->take(code))
            if (hub.social) hub.social->notify_once(player, "tournament_game", std::move(fields));
    };
    hub.services.blocked = [&hub](const std::string& a, const std::string& b, Store::Executor ex,
                                  std::function<void(bool)> then) {
        if (!hub.social) return boost::asio::post(ex, [then] { then(false); });
        hub.social->run<bool>([a, b](SocialDb& db) { return db.blocked_between(a, b); }, ex,
                              [then](Read<bool> r) { then(r.ok() && *r.value); }, false);
    };
    // Vacations: a player's correspondence games on this node are told when it goes or comes back.
    const auto day_ms = hub.cfg.correspondence_day_seconds * 1000;
    hub.social->set_vacations(std::make_shared<Vacations>(
        *hub.social, hub.ioc.get_executor(),
        std::chrono::milliseconds(std::int64_t(hub.cfg.vacation_poll_seconds * 1000)),
        std::int64_t(hub.cfg.vacation_days * day_ms), day_ms,
        [&hub](const std::string& player) {
            for (const auto& code : hub.players.games_of(player))
                if (auto room = hub.directory.find(code)) room->vacation_changed();
        },
        [&hub] {
            for (auto& room : hub.directory.all()) room->vacation_changed();
        }));
    hub.services.on_vacation = [v = hub.social->vacations()](const std::string& player) {
        return v->on(player);
    };
    hub.services.notify = [&hub](const std::string& player, const std::string& kind,
                                 const std::string& fields) {
        if (hub.social)
            hub.social->notify(player, kind, nlohmann::json::parse(fields, nullptr, false));
    };
}

// Tournaments (none for --store memory, which keeps no accounts), directed by this node
// under its id (a single node: "local").
void open_tournaments(Hub& hub, const std::shared_ptr<TournamentNotices>& notices) {
    if (hub.cfg.store == "memory") return;
    TournamentService::Open open;
    if (hub.cfg.store == "postgres")
        open = [url = hub.cfg.database_url] { return open_pg_tournaments(url); };
    else
        open = [dir = hub.cfg.data_dir] { return open_sqlite_tournaments(dir); };
    hub.tournaments = std::make_shared<TournamentService>(
        std::move(open), boost::asio::make_strand(hub.ioc),
        hub.cfg.node_id.empty() ? std::string("local") : hub.cfg.node_id,
        std::chrono::milliseconds(hub.cfg.tournament_pass_ms),
        [&hub, notices](TournamentService::MakeGame g) {
            make_tournament_game(hub, *notices, std::move(g));
        });
    // The operator's schedule (checked with the flags: server/app/options.cpp).
    if (hub.cfg.tournament_schedule_text.empty()) return;
    auto parsed = parse_schedule(hub.cfg.tournament_schedule_text);
    if (auto* entries = std::get_if<std::vector<ScheduledTournament>>(&parsed)) {
        spdlog::info("tournament schedule: {} entries from {}", entries->size(),
                     hub.cfg.tournament_schedule);
        hub.tournaments->schedule(std::move(*entries));
    }
}

// --bus: needs PostgreSQL and a redis:// address.
bool bus_settings_valid(const Config& cfg) {
    if (cfg.bus.empty()) return true;
    if (cfg.store != "postgres") {
        spdlog::critical("--bus needs --store postgres (the nodes share their games there)");
        return false;
    }
    std::string host;
    unsigned short port = 0;
    if (!parse_redis_url(cfg.bus, host, port)) {
        spdlog::critical("--bus {}: not a redis://host:port address", cfg.bus);
        return false;
    }
    return true;
}

// One running server: its io_context, Hub, listeners and (with --bus) cluster membership.
class Node {
  public:
    Node(const Config& cfg, std::unique_ptr<Store> store)
        : cfg_(cfg), ioc_(cfg.threads), hub_(std::make_unique<Hub>(ioc_, cfg, std::move(store))) {
        hub_->puzzles = open_puzzles(cfg, *hub_->store);
        open_social(*hub_, notices_);
    }

    ~Node() {
        http_.reset();
        tcp_.reset();
        if (ran_) {
            if (cluster_) {
                cluster_->stop();
                hub_->peers = &hub_->alone;
            }
            log_store_figures();
        }
        cluster_.reset();
        hub_.reset();  // rooms and their owners go before the io_context and its pending handlers
    }

    // The ports are bound first (connections wait in the kernel's queue until the games are
    // back): a node's default id names the port it really has. With PostgreSQL, the startup
    // responder holds the HTTP port until then, answering 503.
    bool start(std::unique_ptr<StartupResponder> waiting) {
        if (!waiting && !listen()) return false;
        if (!cfg_.bus.empty()) {
            if (hub_->cfg.node_id.empty()) {
                char name[256] = {};
                gethostname(name, sizeof name - 1);
                hub_->cfg.node_id = std::string(name) + "-" + std::to_string(cfg_.http_port);
                hub_->services.node = hub_->cfg.node_id;
            }
            cluster_ = std::make_unique<Cluster>(*hub_);
            hub_->peers = cluster_.get();
            if (!cluster_->start()) return false;
        } else if (!hub_->directory.recover()) {
            return false;
        }
        if (waiting) {
            waiting->stop();
            if (!listen()) return false;
        }
        http_->run();
        tcp_->run();
        if (hub_->social) hub_->social->vacations()->start();  // the rooms are back: they are told
        if (hub_->cfg.house_bots) make_house_bots(*hub_);
        open_tournaments(*hub_, notices_);
        if (hub_->tournaments) hub_->tournaments->start();
        return true;
    }

    // The network threads, until a signal's drain stops the io_context.
    void run() {
        ran_ = true;
        net::signal_set signals(ioc_, SIGINT, SIGTERM);
        signals.async_wait([&](boost::system::error_code ec, int sig) {
            if (ec) return;
            shut_down(sig);
            signals.async_wait([&](boost::system::error_code ec2, int) {
                if (!ec2) {
                    spdlog::warn("second signal: stopping now");
                    ioc_.stop();
                }
            });
        });
        if (!cfg_.web_root.empty() &&
            !std::filesystem::is_regular_file(std::filesystem::path(cfg_.web_root) / "index.html"))
            spdlog::warn("web root {} has no index.html: the web client is not served",
                         cfg_.web_root);
        hub_->ready = true;
        spdlog::info("listening http={}:{} tcp={}:{}", cfg_.bind, http_->port(), cfg_.bind,
                     tcp_->port());
        // Type=notify (packaging/trunkfield-server.service): started once both ports accept.
        notify_service_manager(fmt::format("READY=1\nSTATUS=listening http={}:{} tcp={}:{}",
                                           cfg_.bind, http_->port(), cfg_.bind, tcp_->port()));
        std::vector<std::thread> threads;
        // Network threads: a blocking store read on one of them is a bug (asserted in debug
        // builds).
        for (int i = 1; i < cfg_.threads; ++i)
            threads.emplace_back([&] {
                mark_io_thread();
                ioc_.run();
            });
        mark_io_thread();
        ioc_.run();
        for (auto& t : threads) t.join();
    }

  private:
    bool listen() {
        try {
            auto addr = net::ip::make_address(cfg_.bind);
            http_ = std::make_shared<Listener>(
                ioc_, net::ip::tcp::endpoint(addr, cfg_.http_port),
                [h = hub_.get()](net::ip::tcp::socket s) { start_http_session(std::move(s), *h); });
            tcp_ = std::make_shared<Listener>(
                ioc_, net::ip::tcp::endpoint(addr, cfg_.tcp_port),
                [h = hub_.get()](net::ip::tcp::socket s) { start_tcp_session(std::move(s), *h); });
        } catch (const std::exception& e) {
            spdlog::critical("cannot listen: {}", e.what());
            return false;
        }
        return true;
    }

    // SIGTERM/SIGINT: stop accepting, tell every client, let the rooms finish what is in flight
    // until the store has committed everything handed to it (at most --drain-seconds), give the
    // notices a moment to be written, then stop. Unfinished games resume at the next start from
    // the store.
    void shut_down(int sig) {
        spdlog::info("signal {}: shutting down; in-flight turns are committed first", sig);
        notify_service_manager("STOPPING=1");
        hub_->ready = false;
        if (hub_->social) hub_->social->vacations()->stop();
        if (hub_->tournaments) hub_->tournaments->stop();
        http_->stop();
        tcp_->stop();
        hub_->players.notify_all(std::make_shared<const std::string>(
            proto::to_text(proto::Shutdown{"the server is restarting; your games are saved and "
                                           "continue when it is back",
                                           2000})));
        drain_deadline_ = std::chrono::steady_clock::now() +
                          std::chrono::milliseconds(int(cfg_.drain_seconds * 1000));
        drain_step(0);
    }

    // Every 50 ms until the store has had nothing pending three times running, or the deadline.
    void drain_step(int quiet) {
        const bool idle = hub_->store->pending() == 0;
        if ((idle && quiet >= 3) || std::chrono::steady_clock::now() >= drain_deadline_) {
            if (!idle)
                spdlog::warn("shutdown: {} store writes still queued", hub_->store->pending());
            if (cluster_) cluster_->hand_over();  // the other nodes take the games at once
            spdlog::info("shutdown: stopping");
            return ioc_.stop();
        }
        drain_.expires_after(std::chrono::milliseconds(50));
        drain_.async_wait([this, quiet, idle](boost::system::error_code ec) {
            if (!ec) drain_step(idle ? quiet + 1 : 0);
        });
    }

    void log_store_figures() {
        auto st = hub_->store->stats();
        if (st.latency_ms.empty()) return;
        std::sort(st.latency_ms.begin(), st.latency_ms.end());
        auto at = [&](double q) {
            return st.latency_ms[std::size_t(q * double(st.latency_ms.size() - 1))];
        };
        spdlog::info(
            "store: {} commits of {} operations, {} failed; commit latency median {:.2f} ms, p99 "
            "{:.2f} ms (last {} operations)",
            st.commits, st.operations, st.failures, at(0.5), at(0.99), st.latency_ms.size());
    }

    const Config& cfg_;
    net::io_context ioc_;
    std::unique_ptr<Hub> hub_;
    // Initialised before the constructor's body opens the services that share it.
    std::shared_ptr<TournamentNotices> notices_ = std::make_shared<TournamentNotices>();
    std::shared_ptr<Listener> http_, tcp_;
    std::unique_ptr<Cluster> cluster_;
    bool ran_ = false;
    net::steady_timer drain_{ioc_};
    std::chrono::steady_clock::time_point drain_deadline_;
};

}  // namespace

bool setup_logging(const std::string& level) {
    auto lvl = spdlog::level::from_str(level);
    if (lvl == spdlog::level::off && level != "off") {
        spdlog::error("unknown log level {}", level);
        return false;
    }
    spdlog::set_level(lvl);
    spdlog::flush_on(spdlog::level::trace);
    if (stdout_is_journal()) {
        auto f = std::make_unique<spdlog::pattern_formatter>();
        f->add_flag<SyslogPriority>('*').set_pattern("%*[%l] %v");
        spdlog::set_formatter(std::move(f));
    }
    return true;
}

int serve(Config cfg) {
    spdlog::info("trunkfield-server {}", TF_VERSION);
    raise_descriptor_limit(cfg);
    std::optional<int> exit;
    auto waiting = wait_for_database(cfg, exit);
    if (exit) return *exit;
    std::unique_ptr<Store> store;
    try {
        store = open_store(cfg);
    } catch (const std::exception& e) {
        spdlog::critical("cannot open the store: {}", e.what());
        return 1;
    }
    if (!bus_settings_valid(cfg)) return 1;
    Node node(cfg, std::move(store));
    if (!node.start(std::move(waiting))) return 1;
    node.run();
    return 0;
}

}  // namespace tf::server
