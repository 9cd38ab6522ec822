// trunkfield-server's command line: every setting of Config as a flag, also read from its
// TRUNKFIELD_* variable and from a --config file (a flag wins over its variable, which wins over
// the file), and the subcommands backup, restore, migrate-from-sqlite, puzzles and accounts.
#pragma once

#include <string>

#include "server/base/config.h"

namespace tf::server {

struct Command {
    enum class Kind { Serve, PrintConfig, Backup, Restore, Migrate, Puzzles, Accounts, Exit };
    Kind kind = Kind::Serve;
    int exit_code = 0;  // Exit: after --help, --version or an error, all printed already
    std::string log_level = "info";
    std::string settings;  // PrintConfig: in the --config file's format
    std::string data;      // Backup, Restore, Migrate: the data folder
    std::string backup_to, restore_from;
    bool restore_force = false;
    std::string puzzles_action, puzzles_file;  // Puzzles: "import" FILE or "export"
    bool puzzles_trust = false;
    // Accounts: "grant" or "revoke" `role` to the account `account_name`, or "roles" (list).
    std::string accounts_action, account_name, account_role;
};

// Fills `cfg` and says what to do.
Command parse_command_line(int argc, char** argv, Config& cfg);

}  // namespace tf::server
