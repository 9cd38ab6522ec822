#include "server/app/accounts_tool.h"

#include <iostream>

#include "server/base/time.h"
#include "server/store/social_db.h"

namespace tf::server {

int run_accounts_tool(const std::string& action, const std::string& name, const std::string& role,
                      const std::string& data_dir, const std::string& database_url,
                      std::ostream& out, std::ostream& err) {
    const std::string what = "accounts " + action;
    try {
        auto db = database_url.empty() ? open_sqlite_social_migrating(data_dir)
                                       : open_pg_social_migrating(database_url);
        if (action == "roles") {
            for (const auto& [username, r] : db->moderation().role_holders())
                out << username << " " << r << "\n";
            return 0;
        }
        auto account = db->account(name);
        if (!account) {
            err << what << ": no account is called " << name << "\n";
            return 1;
        }
        const bool on = action == "grant";
        if (!db->moderation().set_role(account->first, account->second, role, on, epoch_ms())) {
            out << what << ": " << account->second << (on ? " is " : " is not ") << role
                << " already\n";
            return 0;
        }
        out << what << ": " << account->second << (on ? " is now " : " is no longer ") << role
            << " (from the account's next connection on)\n";
        return 0;
    } catch (const std::exception& e) {
        err << what << ": " << e.what() << "\n";
        return 1;
    }
}

}  // namespace tf::server
