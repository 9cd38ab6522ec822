// trunkfield-server: the authoritative game server (docs/ARCHITECTURE.md, proto/PROTOCOL.md),
// and its `backup`, `restore`, `migrate-from-sqlite`, `puzzles` and `accounts` subcommands
// (docs/OPERATING.md).
// The command line is read in options.cpp; the server is put together and run in assembly.cpp.
#include <spdlog/spdlog.h>

#include <iostream>

#include "server/app/accounts_tool.h"
#include "server/app/assembly.h"
#include "server/app/backup.h"
#include "server/app/options.h"
#include "server/app/puzzle_tool.h"
#include "server/store/pg_store.h"

namespace tf::server {
namespace {

int run_backup(const std::string& data, const std::string& to) {
    try {
        auto s = backup_store(data, to);
        std::cout << "backup: wrote " << to << " from " << data << "/trunkfield.db: schema "
                  << s.schema << ", " << s.games << " games (" << s.finished << " finished), "
                  << s.players << " players, " << s.bytes << " bytes\n";
        return 0;
    } catch (const std::exception& e) {
        std::cerr << "backup: " << e.what() << "\n";
        return 1;
    }
}

int run_migrate(const std::string& data, const PgOptions& to) {
    if (to.url.empty()) {
        std::cerr << "migrate-from-sqlite: --database-url (or TRUNKFIELD_DATABASE_URL) is "
                     "required\n";
        return 2;
    }
    spdlog::set_level(spdlog::level::warn);
    try {
        std::cout << "migrate-from-sqlite: " << migrate_sqlite_to_pg(data, to) << "\n";
        return 0;
    } catch (const std::exception& e) {
        std::cerr << "migrate-from-sqlite: " << e.what() << "\n";
        return 1;
    }
}

int run_restore(const std::string& from, const std::string& data, bool force) {
    try {
        std::string aside;
        auto s = restore_store(from, data, force, &aside);
        if (!aside.empty()) std::cout << "restore: the previous store is now " << aside << "\n";
        std::cout << "restore: " << data << "/trunkfield.db is now the copy of " << from
                  << ": schema " << s.schema << ", " << s.games << " games (" << s.finished
                  << " finished), " << s.players
                  << " players; the server migrates it if needed when it starts\n";
        return 0;
    } catch (const std::exception& e) {
        std::cerr << "restore: " << e.what() << "\n";
        return 1;
    }
}

}  // namespace
}  // namespace tf::server

int main(int argc, char** argv) {
    using namespace tf::server;
    Config cfg;
    const Command cmd = parse_command_line(argc, argv, cfg);
    switch (cmd.kind) {
        case Command::Kind::Exit:
            return cmd.exit_code;
        case Command::Kind::PrintConfig:
            std::cout << cmd.settings;
            return 0;
        case Command::Kind::Backup:
            return run_backup(cmd.data, cmd.backup_to);
        case Command::Kind::Restore:
            return run_restore(cmd.restore_from, cmd.data, cmd.restore_force);
        case Command::Kind::Migrate:
            return run_migrate(cmd.data, {cfg.database_url, cfg.accept_unsafe_database});
        case Command::Kind::Puzzles:
            spdlog::set_level(spdlog::level::warn);
            return run_puzzle_tool({cmd.puzzles_action, cmd.puzzles_file, cmd.puzzles_trust,
                                    cmd.data, cfg.database_url},
                                   std::cout, std::cerr);
        case Command::Kind::Accounts:
            spdlog::set_level(spdlog::level::warn);
            return run_accounts_tool(cmd.accounts_action, cmd.account_name, cmd.account_role,
                                     cmd.data, cfg.database_url, std::cout, std::cerr);
        case Command::Kind::Serve:
            break;
    }
    if (!setup_logging(cmd.log_level)) return 2;
    return serve(cfg);
}
