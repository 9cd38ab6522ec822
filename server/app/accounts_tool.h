// `trunkfield-server accounts grant NAME ROLE`, `revoke NAME ROLE` and `roles` (docs/OPERATING.md
// "Moderators"): the operator gives and takes back roles, on the SQLite store of a data folder
// or on PostgreSQL, also while servers run on it. Each change is an entry of the audit log.
#pragma once

#include <iosfwd>
#include <string>

namespace tf::server {

// The exit code; what was done on `out`, what went wrong on `err`.
int run_accounts_tool(const std::string& action, const std::string& name, const std::string& role,
                      const std::string& data_dir, const std::string& database_url,
                      std::ostream& out, std::ostream& err);

}  // namespace tf::server
