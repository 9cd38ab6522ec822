// Every case of ../shared/spec/conformance replayed through the library, its `expect` checked in
// full. The folder is read at run time, so new cases count automatically.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "common/record.h"

namespace fs = std::filesystem;
using tf::Json;

namespace {

std::vector<std::string> canonical_moves(const Json& moves) {
    std::vector<std::string> out;
    for (const Json& m : moves) out.push_back(m.dump());
    std::sort(out.begin(), out.end());
    return out;
}

}  // namespace

TEST_CASE("conformance cases") {
    const fs::path dir = fs::path(TF_SPEC_DIR) / "conformance";
    REQUIRE_MESSAGE(fs::is_directory(dir), "missing " << dir);
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(dir))
        if (e.path().extension() == ".json") files.push_back(e.path());
    std::sort(files.begin(), files.end());
    REQUIRE(files.size() >= 1);
    MESSAGE("conformance cases: " << files.size());
    for (const fs::path& f : files) {
        CAPTURE(f.filename().string());
        std::ifstream in(f);
        const Json c = Json::parse(in);
        const Json& ex = c.at("expect");
        auto r = tf::replay_record(c.at("record"));
        REQUIRE(r);
        CHECK(r->applied == ex.at("applied").get<int>());
        if (ex.at("error_turn").is_null()) {
            CHECK(!r->error);
        } else {
            CHECK(r->error);
            CHECK(r->error_turn == ex.at("error_turn").get<int>());
        }
        const Json res = tf::result_to_json(r->game);
        CHECK(res.at("over") == ex.at("over"));
        CHECK(res.at("reason") == ex.at("reason"));
        CHECK(res.at("score") == ex.at("score"));
        CHECK(res.at("winner") == ex.at("winner"));
        CHECK(res.at("to_move") == ex.at("to_move"));
        CHECK(canonical_moves(tf::moves_to_json(r->game)) == canonical_moves(ex.at("moves")));
        CHECK(r->game.is_ok());
    }
}
