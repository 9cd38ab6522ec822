// Corpus helper for fuzz_rules_json (used by make_corpus.py, not a test): reads conformance cases
// or records and prints the game state (state_to_json) after the setups and after every
// `every`-th legal turn, one compact JSON per line.
//   fuzz_seed_states EVERY FILE...
#include <fstream>
#include <iostream>
#include <string>

#include <nlohmann/json.hpp>

#include "common/json.h"
#include "common/record.h"

int main(int argc, char** argv) {
    if (argc < 3) {
        std::cerr << "usage: fuzz_seed_states EVERY FILE...\n";
        return 2;
    }
    const int every = std::max(1, std::stoi(argv[1]));
    for (int i = 2; i < argc; ++i) {
        std::ifstream in(argv[i]);
        tf::Json j = tf::Json::parse(in, nullptr, false);
        if (j.is_discarded()) continue;
        if (j.is_object() && j.contains("record")) j = j["record"];
        auto r = tf::replay_record(j);
        if (!r || r->error_setup) continue;
        tf::Game g(r->record.variant);
        g.apply_setup(tf::Side::Silver, r->record.silver);
        g.apply_setup(tf::Side::Bronze, r->record.bronze);
        std::cout << tf::state_to_json(g).dump() << '\n';
        for (size_t t = 0; t < r->record.turns.size(); ++t) {
            g.apply_turn(r->record.turns[t]);
            if ((t + 1) % every == 0 || t + 1 == r->record.turns.size())
                std::cout << tf::state_to_json(g).dump() << '\n';
        }
    }
    return 0;
}
