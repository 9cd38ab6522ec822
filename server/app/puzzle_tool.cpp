#include "server/app/puzzle_tool.h"

#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "common/puzzles.h"
#include "server/base/time.h"
#include "server/puzzles/puzzle_service.h"
#include "server/store/puzzle_db.h"

namespace tf::server {

int run_puzzle_tool(const PuzzleToolOptions& o, std::ostream& out, std::ostream& err) {
    const char* what = o.action == "import" ? "puzzles import" : "puzzles export";
    try {
        auto db = o.database_url.empty() ? open_sqlite_puzzles_migrating(o.data_dir)
                                         : open_pg_puzzles(o.database_url, true);
        if (o.action == "export") {
            for (const auto& p : db->all()) out << p.body << "\n";
            return 0;
        }
        std::ifstream in(o.file);
        if (!in) {
            err << what << ": cannot read " << o.file << "\n";
            return 1;
        }
        std::vector<StoredPuzzle> good;
        int read = 0, refused = 0, line_no = 0;
        for (std::string line; std::getline(in, line);) {
            ++line_no;
            if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
            ++read;
            auto j = nlohmann::json::parse(line, nullptr, false);
            auto p = j.is_discarded()
                         ? Expected<Puzzle>(RuleError{ErrorCode::BadFormat, "not JSON"})
                         : puzzle_from_json(j);
            std::string why;
            if (!p) {
                why = p.error().message;
            } else if (!o.trust && !verify_puzzle(*p, PuzzleOptions{}.verify_nodes, {}, &why)) {
                why = "it does not verify: " + why;
            } else {
                good.push_back(stored_puzzle(*p, "", epoch_ms()));
                continue;
            }
            ++refused;
            err << what << ": " << o.file << ":" << line_no << ": refused: " << why << "\n";
        }
        const int added = db->add(good);
        out << what << ": " << read << " read, " << refused << " refused, " << added << " new, "
            << int(good.size()) - added << " already stored\n";
        return refused ? 1 : 0;
    } catch (const std::exception& e) {
        err << what << ": " << e.what() << "\n";
        return 1;
    }
}

}  // namespace tf::server
