#include "server/app/options.h"

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include "server/director/schedule.h"
#include "server/net/client_address.h"
#include "server/web/static_files.h"

#ifndef TF_VERSION
#define TF_VERSION "unknown"
#endif

namespace tf::server {

namespace {

// Reads --config files ("flag = value" lines, # comments: packaging/trunkfield.conf). CLI11
// fills an option from the file only when the command line did not give it, but it reads the
// file before the environment, so a file would beat TRUNKFIELD_* variables: this reader drops
// the file's value of every option whose variable is set, and the environment fills it.
class FileBelowEnvironment : public CLI::ConfigBase {
  public:
    explicit FileBelowEnvironment(const CLI::App& app) : app_(app) {}
    std::vector<CLI::ConfigItem> from_config(std::istream& in) const override {
        std::vector<CLI::ConfigItem> items = CLI::ConfigBase::from_config(in);
        std::erase_if(items, [&](const CLI::ConfigItem& item) {
            const CLI::Option* o =
                item.parents.empty() ? app_.get_option_no_throw("--" + item.name) : nullptr;
            if (!o || o->get_envname().empty()) return false;  // unknown ones are errors later
            const char* v = std::getenv(o->get_envname().c_str());
            return v && *v;
        });
        return items;
    }

  private:
    const CLI::App& app_;
};

// Every option can also come from the environment: --grace-seconds from
// TRUNKFIELD_GRACE_SECONDS, and so on.
std::string env_name(const std::string& flag) {
    std::string env = "TRUNKFIELD_" + flag;
    for (char& c : env) c = c == '-' ? '_' : char(std::toupper(static_cast<unsigned char>(c)));
    return env;
}

// --print-config: the value of every server setting, in the --config file's format.
std::string settings_text(const CLI::App& app) {
    auto quoted = [](const std::string& v) { return '"' + v + '"'; };
    std::string out;
    for (const CLI::Option* o : app.get_options()) {
        if (!o->get_configurable() || o->get_lnames().empty()) continue;
        const std::string& name = o->get_lnames()[0];
        if (name == "help" || name == "version") continue;
        std::vector<std::string> values =
            o->count() ? o->results() : std::vector<std::string>{o->get_default_str()};
        std::erase(values, std::string());
        out += name + " = ";
        if (o->get_delimiter() != '\0') {  // a list: ["a", "b"]; none is ""
            std::string items;
            for (const std::string& v : values) items += (items.empty() ? "" : ", ") + quoted(v);
            out += values.empty() ? "\"\"" : "[" + items + "]";
        } else if (o->get_type_name().rfind("TEXT", 0) == 0) {
            out += quoted(values.empty() ? "" : values.back());
        } else {
            out += values.empty() ? "" : values.back();
        }
        out += "\n";
    }
    return out;
}

}  // namespace

Command parse_command_line(int argc, char** argv, Config& cfg) {
    Command cmd;
    CLI::App app{"Trunkfield game server"};
    app.option_defaults()->always_capture_default();  // --help shows every default
    app.add_option("--http-port", cfg.http_port, "HTTP and WebSocket (/ws) port, 0 = any free");
    app.add_option("--tcp-port", cfg.tcp_port, "newline-delimited JSON port, 0 = any free");
    app.add_option("--bind", cfg.bind, "address to listen on");
    app.add_option("--data", cfg.data_dir,
                   "data directory holding the game store trunkfield.db (created when missing)")
        ->capture_default_str();
    app.add_option("--store", cfg.store,
                   "sqlite (durable, in --data), postgres (durable, shared by several servers: "
                   "--database-url) or memory (nothing survives a restart and the history API "
                   "sees no game: benchmarks and throwaway servers only)")
        ->check(CLI::IsMember({"sqlite", "postgres", "memory"}))
        ->capture_default_str();
    app.add_option("--database-url", cfg.database_url,
                   "--store postgres: the database, as a libpq connection string "
                   "(postgresql://user:password@host:port/dbname, or \"host=... dbname=...\")");
    app.add_flag("--accept-unsafe-database", cfg.accept_unsafe_database,
                 "--store postgres: start even if the database runs with fsync or "
                 "synchronous_commit off (an acknowledged turn could then be lost in a crash)")
        ->default_str("false");  // a flag has no default text of its own: --print-config
    app.add_flag("--fail-fast", cfg.fail_fast,
                 "--store postgres: exit 1 at once when PostgreSQL cannot be reached at start "
                 "(default: wait for it, trying again with a backoff, /readyz 503 meanwhile)")
        ->default_str("false");
    app.add_option("--bus", cfg.bus,
                   "several nodes: the Redis server they share (redis://host:port); needs "
                   "--store postgres. Any node then serves any player; a node's games go on on "
                   "the others when it dies (docs/ARCHITECTURE.md \"Several nodes\")");
    app.add_option("--node-id", cfg.node_id,
                   "--bus: this node's name, unique among the nodes (default: host name and "
                   "the HTTP port bound). A node whose id another running node holds refuses "
                   "to start");
    app.add_option("--lease-ms", cfg.lease_ms,
                   "--bus: how long this node's hold on its games lasts without renewal "
                   "(renewed every third of it); its games move to other nodes this long "
                   "after it dies")
        ->check(CLI::Range(900, 600000))
        ->capture_default_str();
    app.add_option("--sync", cfg.sync,
                   "store durability: full (survives power loss), normal (survives a crash of "
                   "the server), off (benchmarks only)")
        ->check(CLI::IsMember({"full", "normal", "off"}))
        ->capture_default_str();
    app.add_option("--fault-file", cfg.fault_file,
                   "for tests: the store injects the faults named in this file, re-read when it "
                   "changes (server/store/faulty_store.h: write=ok|fail|fsync, reads=ok|fail, "
                   "commit_delay_ms=N)");
    app.add_option("--drain-seconds", cfg.drain_seconds,
                   "on SIGTERM, wait at most this long for in-flight turns to be stored")
        ->check(CLI::PositiveNumber);
    app.add_option("--workers", cfg.workers, "worker threads for store reads and bots")
        ->check(CLI::Range(1, 256));
    cfg.web_root = default_web_root();
    app.add_option("--web-root", cfg.web_root,
                   "folder of the web client served at / (default: <exe dir>/../web)");
    app.add_option("--log-level", cmd.log_level,
                   "trace, debug, info, warn, error, critical or off");
    app.add_option("--threads", cfg.threads, "threads running the io_context")
        ->check(CLI::Range(1, 256));
    app.add_option("--grace-seconds", cfg.grace_seconds,
                   "grace period for a disconnected player before the opponent may claim the "
                   "win (awarded after twice this); fractions allowed")
        ->check(CLI::NonNegativeNumber);
    app.add_option("--award-seconds", cfg.award_seconds,
                   "after the grace period, award the win unclaimed this much later "
                   "(default: one more grace period)");
    app.add_flag("--mine-puzzles", cfg.mine_puzzles,
                 "find puzzles in finished public games of 16 turns or more, one game at a "
                 "time on a thread of the lowest priority (proto/PROTOCOL.md \"Puzzle API\")")
        ->capture_default_str();
    app.add_option("--mine-puzzles-every", cfg.mine_puzzles_every,
                   "seconds between looks for finished games to mine, when the last look found "
                   "none")
        ->check(CLI::Range(1, 86400))
        ->capture_default_str();
    app.add_option("--bot-pace", cfg.bot_pace,
                   "the computer shows a move no sooner than a human-like moment after the "
                   "position (a setup 0.8 s, a turn 0.35 s + 0.1 s per level, at most 1/60 of its "
                   "time left), times this; 0: at once")
        ->check(CLI::Range(0.0, 10.0))
        ->capture_default_str();
    app.add_flag("--house-bots,!--no-house-bots", cfg.house_bots,
                 "make the built-in levels' bot accounts Level1 to Level5 at start when missing "
                 "(people challenge them, rated or not; PROTOCOL.md \"House bots\")")
        ->default_str("true");
    app.add_option("--tournament-schedule", cfg.tournament_schedule,
                   "a JSON file of the tournaments the server makes itself, e.g. an hourly "
                   "arena and a weekly Swiss (docs/TOURNAMENTS.md \"The operator's schedule\"); "
                   "none when empty");
    app.add_option("--stall-seconds", cfg.stall_seconds,
                   "a player sitting on a move this long in a position the bot judges lost is "
                   "stalling: the opponent may claim the win or a draw (0: from the time "
                   "control, docs/RULES.md \"Stalling\"); fractions allowed")
        ->check(CLI::NonNegativeNumber)
        ->capture_default_str();
    app.add_option("--start-timeout-seconds", cfg.start_timeout_seconds,
                   "abort a game whose setups and silver's first turn are not done this long "
                   "after both seats are filled; fractions allowed")
        ->check(CLI::PositiveNumber);
    app.add_option("--retention-seconds", cfg.retention_seconds,
                   "keep a finished game in memory this long; fractions allowed")
        ->check(CLI::NonNegativeNumber);
    app.add_option("--chat-lines", cfg.chat_lines, "chat lines per player per game per window")
        ->check(CLI::Range(1, 1000));
    app.add_option("--chat-window-seconds", cfg.chat_window_seconds,
                   "chat rate window; fractions allowed")
        ->check(CLI::PositiveNumber);
    app.add_option("--rate", cfg.rate_per_second, "message credits per second per connection")
        ->check(CLI::PositiveNumber);
    app.add_option("--burst", cfg.rate_burst, "message credit bucket size")
        ->check(CLI::PositiveNumber);
    app.add_option("--history", cfg.history, "events kept per game for reconnection")
        ->check(CLI::Range(1, 1 << 20));
    app.add_option("--handshake-seconds", cfg.handshake_seconds,
                   "a new connection must complete its first message (TCP) or its HTTP request "
                   "within this time (also the wait between HTTP keep-alive requests)")
        ->check(CLI::PositiveNumber);
    app.add_option("--slow-seconds", cfg.slow_seconds,
                   "a TCP message or WebSocket frame may stay incomplete this long before the "
                   "connection closes")
        ->check(CLI::PositiveNumber);
    app.add_option("--max-games", cfg.max_games,
                   "unfinished games one player may hold a seat in when creating another")
        ->check(CLI::Range(1, 100000));
    app.add_option("--max-open-games-per-player", cfg.max_open_games_per_player,
                   "games waiting for an opponent one player may have created (create_game: "
                   "too_many_open_games)")
        ->check(CLI::Range(1, 100000))
        ->capture_default_str();
    app.add_option("--max-open-games-per-ip", cfg.max_open_games_per_ip,
                   "games waiting for an opponent created from one client address (IPv6: one "
                   "/64), whoever created them: a script's fresh guests count together")
        ->check(CLI::Range(1, 100000))
        ->capture_default_str();
    app.add_option("--open-away-seconds", cfg.open_away_seconds,
                   "an open game whose creator has had no connection to it this long leaves the "
                   "lobby (and is listed again when the creator comes back)")
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
    app.add_option("--open-cancel-seconds", cfg.open_cancel_seconds,
                   "an open game whose creator has had no connection to it this long is "
                   "cancelled")
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
    app.add_option("--correspondence-day-seconds", cfg.correspondence_day_seconds,
                   "the length of a day of correspondence clocks (days per move), of their "
                   "no-start limit and of an open correspondence game's lapse; for tests")
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
    app.add_option("--vacation-days", cfg.vacation_days,
                   "the vacation an account has a calendar year (its correspondence clocks stand "
                   "on its move), in days of --correspondence-day-seconds")
        ->check(CLI::NonNegativeNumber)
        ->capture_default_str();
    app.add_option("--vacation-poll-seconds", cfg.vacation_poll_seconds,
                   "how often the node reads who is on vacation (a change made on another node "
                   "reaches its games within this time)")
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
    app.add_option(
        "--smtp-url", cfg.smtp_url,
        "the SMTP relay that sends the players' mails: smtp://[USER:PASSWORD@]HOST[:PORT] "
        "(STARTTLS when offered) or smtps://...; none: no mail, and players cannot give "
        "an address");
    app.add_option("--mail-from", cfg.mail_from,
                   "the address mails come from (default: trunkfield@ the --public-url's host)");
    app.add_option("--public-url", cfg.public_url,
                   "the address players reach this server at, for the links in mails (default: "
                   "http://BIND:HTTP_PORT)");
    app.add_option("--mail-turn-gap-seconds", cfg.mail_turn_gap_seconds,
                   "a correspondence game's \"your move\" is mailed at most once per this time")
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
    app.add_option("--mail-digest-seconds", cfg.mail_digest_seconds,
                   "an account that asked for the digest gets at most one mail per this time")
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
    app.add_option("--mail-poll-seconds", cfg.mail_poll_seconds,
                   "how often the node looks for mails due (another node's too)")
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
    app.add_option("--lobby-interval-ms", cfg.lobby_interval_ms,
                   "open-games list: at most one message per interval to each subscriber "
                   "(changes in between are coalesced; 0 = every change)")
        ->check(CLI::Range(0, 3600000))
        ->capture_default_str();
    app.add_option("--list-limit", cfg.list_limit, "games in one lobby or live list message")
        ->check(CLI::Range(1, 100000));
    app.add_option("--live-interval-ms", cfg.live_interval_ms,
                   "live-games list: at most one turn update per interval (0 = every turn); "
                   "also the players' spectator count: at most one update per interval")
        ->check(CLI::Range(0, 3600000));
    app.add_option("--max-connections-per-ip", cfg.max_connections_per_ip,
                   "open connections from one client address (IPv6: one /64) over both ports "
                   "together; more are refused (TCP: error too_many_connections, HTTP: 429). "
                   "0 = no limit (behind a reverse proxy every client has the proxy's address)")
        ->check(CLI::Range(0, 1000000))
        ->capture_default_str();
    app.add_option("--max-connections", cfg.max_connections,
                   "open connections in all, both ports; more are refused (TCP: error "
                   "too_many_connections, HTTP: 503) so that the server never runs out of "
                   "descriptors. 0 = the descriptor limit (RLIMIT_NOFILE, raised to its hard "
                   "limit at start) less a reserve of max(64, a sixteenth)")
        ->check(CLI::Range(0, 100000000))
        ->capture_default_str();
    app.add_option("--trusted-proxies", cfg.trusted_proxies,
                   "comma-separated addresses or CIDR blocks of reverse proxies and load "
                   "balancers (e.g. 127.0.0.1,10.0.0.0/8): from them the X-Forwarded-For header "
                   "(HTTP, WebSocket) and the PROXY protocol v1/v2 header (TCP) name the client, "
                   "whose address every per-address limit and log line then uses. Empty "
                   "(default): nobody's headers are believed")
        ->delimiter(',')
        ->default_str("");
    app.add_option("--password-threads", cfg.password_threads,
                   "threads hashing and checking passwords (Argon2id, 64 MiB each); 0 = one "
                   "per core")
        ->check(CLI::Range(0, 256))
        ->capture_default_str();
    app.add_option("--password-queue", cfg.password_queue,
                   "password checks waiting or running at most; more are refused at once with "
                   "try_again. 0 = 8 per password thread")
        ->check(CLI::Range(0, 100000))
        ->capture_default_str();
    app.add_option("--login-checks-per-address", cfg.login_checks_per_address,
                   "password checks (logins, registrations, password changes, successful or "
                   "not) one client address may ask for within 10 minutes")
        ->check(CLI::Range(1, 1000000))
        ->capture_default_str();
    app.add_option("--metrics-token", cfg.metrics_token,
                   "GET /metrics answers requests with \"Authorization: Bearer TOKEN\"; without "
                   "a token only clients on this machine that did not come through a proxy "
                   "(TRUNKFIELD_METRICS_TOKEN keeps it out of the process list)");
    app.add_option("--allowed-origins", cfg.allowed_origins,
                   "comma-separated origins (e.g. https://play.example.org) whose pages may open "
                   "a WebSocket; other Origin headers get 403. Empty (default): any origin. "
                   "Requests without Origin (non-browser clients) are always allowed")
        ->delimiter(',')
        ->default_str("");
    app.add_option("--lag-probe-seconds", cfg.lag_probe_seconds,
                   "a WebSocket gets a ping this often to measure its round trip, credited to "
                   "the player's clock on each turn (PROTOCOL.md \"Lag\"); 0: never (no credit "
                   "on WebSocket)")
        ->check(CLI::NonNegativeNumber)
        ->capture_default_str();
    app.add_option("--idle-seconds", cfg.idle_seconds,
                   "a WebSocket silent this long gets a ping; no answer within as long again "
                   "closes it (browsers answer pings by themselves); fractions allowed")
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
    // Precedence: a flag on the command line, then its TRUNKFIELD_* variable, then --config.
    for (CLI::Option* o : app.get_options()) {
        if (o->get_lnames().empty() || o->get_lnames()[0] == "help") continue;
        o->envname(env_name(o->get_lnames()[0]));
    }
    const char* env_config = std::getenv("TRUNKFIELD_CONFIG");
    const bool config_from_env = env_config && *env_config;
    app.set_config("--config", config_from_env ? env_config : "",
                   "read flags from this file: \"flag = value\" lines, # comments (the package's "
                   "/etc/trunkfield/trunkfield.conf lists them all); flags and TRUNKFIELD_* "
                   "variables win over it",
                   config_from_env)
        ->envname("TRUNKFIELD_CONFIG");
    app.config_formatter(std::make_shared<FileBelowEnvironment>(app));
    app.allow_config_extras(CLI::config_extras_mode::error);  // a misspelt flag is an error
    bool print_config = false;
    app.add_flag("--print-config", print_config,
                 "print the settings the flags, the environment and --config add up to, in the "
                 "file's format, and exit")
        ->configurable(false);
    app.set_version_flag("--version", "trunkfield-server " TF_VERSION);

    std::string backup_data, restore_data;
    CLI::App* backup = app.add_subcommand(
        "backup",
        "write a consistent copy of the game store to a file, also while a server plays on it, "
        "and exit. --data defaults to the server's (flag, TRUNKFIELD_DATA or --config given "
        "before `backup`)");
    CLI::Option* backup_data_opt =
        backup->add_option("--data", backup_data, "data folder holding trunkfield.db");
    backup
        ->add_option("--to", cmd.backup_to,
                     "backup file to write (replaced when it exists; mode 0600: it holds the "
                     "players' tokens)")
        ->required();
    CLI::App* restore = app.add_subcommand(
        "restore",
        "install a backup as the game store of a data folder no server is running on, and "
        "exit; the server migrates an older schema when it starts");
    restore->add_option("--from", cmd.restore_from, "backup file written by `backup`")->required();
    CLI::Option* restore_data_opt =
        restore->add_option("--data", restore_data, "data folder (default: as for backup)");
    restore->add_flag("--force", cmd.restore_force,
                      "replace a store the folder already holds (its files are kept beside it "
                      "as trunkfield.db.replaced-DATE)");
    std::string migrate_data;
    CLI::App* migrate = app.add_subcommand(
        "migrate-from-sqlite",
        "copy the SQLite store of a data folder no server is running on into an empty "
        "PostgreSQL database (--database-url, given before or after the subcommand), verify "
        "every copied game by reading it back and replaying its record, and exit");
    CLI::Option* migrate_data_opt =
        migrate->add_option("--data", migrate_data, "data folder (default: as for backup)");
    migrate->add_option("--database-url", cfg.database_url, "the PostgreSQL database");
    CLI::App* puzzles = app.add_subcommand(
        "puzzles",
        "the store's puzzles: `import FILE` adds the puzzles of a file of JSON lines (as "
        "`trunkfield puzzles generate` writes), each verified first unless --trust; `export` "
        "prints the stored ones as JSON lines. The SQLite store of --data, or PostgreSQL with "
        "--database-url; a server may be running on it");
    puzzles->require_subcommand(1, 1);
    CLI::App* pz_import = puzzles->add_subcommand("import", "add the puzzles of a file");
    pz_import->add_option("FILE", cmd.puzzles_file, "JSON lines, one puzzle each")->required();
    pz_import->add_flag("--trust", cmd.puzzles_trust,
                        "skip the verification (a search of 140,000 positions per solver turn)");
    CLI::App* pz_export = puzzles->add_subcommand("export", "print the stored puzzles");
    std::string puzzles_data;
    CLI::Option* puzzles_data_opt =
        puzzles->add_option("--data", puzzles_data, "data folder (default: as for backup)");
    puzzles->add_option("--database-url", cfg.database_url, "the PostgreSQL database");
    for (CLI::App* sub : {pz_import, pz_export}) {
        sub->add_option("--data", puzzles_data, "data folder (default: as for backup)");
        sub->add_option("--database-url", cfg.database_url, "the PostgreSQL database");
    }
    CLI::App* accounts = app.add_subcommand(
        "accounts",
        "the accounts' roles: `grant NAME moderator` gives an account the moderator role, "
        "`revoke NAME moderator` takes it back, `roles` lists who has one (docs/OPERATING.md "
        "\"Moderators\"); each change is written to the audit log. The SQLite store of --data, "
        "or PostgreSQL with --database-url; a server may be running on it");
    accounts->require_subcommand(1, 1);
    std::string accounts_data;
    CLI::Option* accounts_data_opt =
        accounts->add_option("--data", accounts_data, "data folder (default: as for backup)");
    accounts->add_option("--database-url", cfg.database_url, "the PostgreSQL database");
    CLI::App* ac_grant = accounts->add_subcommand("grant", "give an account a role");
    CLI::App* ac_revoke = accounts->add_subcommand("revoke", "take a role back");
    CLI::App* ac_roles = accounts->add_subcommand("roles", "list the accounts with a role");
    for (CLI::App* sub : {ac_grant, ac_revoke}) {
        sub->add_option("NAME", cmd.account_name, "the account's username")->required();
        sub->add_option("ROLE", cmd.account_role, "the role")
            ->required()
            ->check(CLI::IsMember({"moderator"}));
    }
    for (CLI::App* sub : {ac_grant, ac_revoke, ac_roles}) {
        sub->add_option("--data", accounts_data, "data folder (default: as for backup)");
        sub->add_option("--database-url", cfg.database_url, "the PostgreSQL database");
    }
    app.require_subcommand(0, 1);
    auto exit = [&](int code) {
        cmd.kind = Command::Kind::Exit;
        cmd.exit_code = code;
        return cmd;
    };
    try {
        app.parse(argc, argv);
    } catch (const CLI::ConfigError& e) {
        std::cerr << "trunkfield-server: in --config " << app.get_config_ptr()->as<std::string>()
                  << ": " << e.what() << "\n";
        return exit(e.get_exit_code());
    } catch (const CLI::ParseError& e) {
        return exit(app.exit(e));
    }
    // An empty value (allowed-origins = "" in a file) is the empty list, not one empty origin.
    std::erase(cfg.allowed_origins, std::string());
    std::erase(cfg.trusted_proxies, std::string());
    {
        std::string error;
        if (!TrustedProxies::parse(cfg.trusted_proxies, error)) {
            std::cerr << "trunkfield-server: --trusted-proxies: " << error << "\n";
            return exit(2);
        }
    }
    if (!cfg.tournament_schedule.empty()) {
        std::ifstream in(cfg.tournament_schedule);
        if (!in) {
            std::cerr << "trunkfield-server: --tournament-schedule: cannot read "
                      << cfg.tournament_schedule << "\n";
            return exit(2);
        }
        std::ostringstream text;
        text << in.rdbuf();
        cfg.tournament_schedule_text = text.str();
        const auto parsed = parse_schedule(cfg.tournament_schedule_text);
        if (auto* error = std::get_if<std::string>(&parsed)) {
            std::cerr << "trunkfield-server: " << *error << "\n";
            return exit(2);
        }
    }

    using K = Command::Kind;
    if (print_config) {
        cmd.kind = K::PrintConfig;
        cmd.settings = settings_text(app);
    } else if (*backup) {
        cmd.kind = K::Backup;
        cmd.data = backup_data_opt->count() ? backup_data : cfg.data_dir;
    } else if (*restore) {
        cmd.kind = K::Restore;
        cmd.data = restore_data_opt->count() ? restore_data : cfg.data_dir;
    } else if (*puzzles) {
        cmd.kind = K::Puzzles;
        cmd.puzzles_action = *pz_import ? "import" : "export";
        cmd.data = !puzzles_data.empty() || puzzles_data_opt->count() ? puzzles_data : cfg.data_dir;
    } else if (*accounts) {
        cmd.kind = K::Accounts;
        cmd.accounts_action = *ac_grant ? "grant" : *ac_revoke ? "revoke" : "roles";
        cmd.data =
            !accounts_data.empty() || accounts_data_opt->count() ? accounts_data : cfg.data_dir;
    } else if (*migrate) {
        cmd.kind = K::Migrate;
        cmd.data = migrate_data_opt->count() ? migrate_data : cfg.data_dir;
    }
    return cmd;
}

}  // namespace tf::server
