#include "server/store/store.h"

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>

#include "server/base/io_thread.h"

namespace tf::server {

namespace {

// Starts one asynchronous read with an executor of this thread's own and runs that executor
// until the answer is there.
template <class T, class Start>
T wait_for(Start start) {
    assert_off_io_thread();
    if (on_store_thread()) throw StoreError("a blocking read on a store's own thread");
    boost::asio::io_context ioc;
    auto guard = boost::asio::make_work_guard(ioc);
    std::optional<Read<T>> got;
    start(Store::Executor(ioc.get_executor()), Store::Then<T>([&](Read<T> r) {
              got = std::move(r);
              guard.reset();
          }));
    ioc.run();
    if (!got->ok()) throw StoreError(got->error, got->fault);
    return std::move(*got->value);
}

}  // namespace

void Store::read_open_counts(std::string, std::string, std::string, Executor ex,
                             Then<OpenGameCounts> then) {
    answer<OpenGameCounts>(
        {}, ex, [] { return OpenGameCounts{}; }, std::move(then));
}

std::optional<StoredPlayer> Store::player_by_selector(const std::string& selector) {
    return wait_for<std::optional<StoredPlayer>>(
        [&](Executor ex, auto then) { read_player(selector, ex, std::move(then)); });
}
std::optional<StoredAccount> Store::account_by_name(const std::string& username) {
    return wait_for<std::optional<StoredAccount>>(
        [&](Executor ex, auto then) { read_account(username, ex, std::move(then)); });
}
std::vector<StoredRating> Store::ratings_of(const std::string& player_id) {
    return wait_for<std::vector<StoredRating>>(
        [&](Executor ex, auto then) { read_ratings(player_id, ex, std::move(then)); });
}
std::vector<LeaderRow> Store::leaderboard(const std::string& category, int limit,
                                          std::int64_t active_since_ms, bool bots) {
    return wait_for<std::vector<LeaderRow>>([&](Executor ex, auto then) {
        read_leaderboard(category, limit, active_since_ms, bots, ex, std::move(then));
    });
}
std::optional<PlayerProfile> Store::profile(const std::string& username, int recent,
                                            const std::string& viewer) {
    return wait_for<std::optional<PlayerProfile>>([&](Executor ex, auto then) {
        read_profile(username, recent, viewer, ex, std::move(then));
    });
}
bool Store::code_taken(const std::string& code) {
    return wait_for<bool>(
        [&](Executor ex, auto then) { read_code_taken(code, ex, std::move(then)); });
}
std::vector<StoredGame> Store::unfinished() {
    return wait_for<std::vector<StoredGame>>(
        [&](Executor ex, auto then) { read_unfinished(ex, std::move(then)); });
}
std::optional<GameRows> Store::game_rows(const std::string& code) {
    return wait_for<std::optional<GameRows>>(
        [&](Executor ex, auto then) { read_game(code, ex, std::move(then)); });
}
std::optional<StoredGame> Store::game(const std::string& code) {
    auto rows = game_rows(code);
    if (!rows) return std::nullopt;
    return std::move(rows->row);
}
std::vector<JournalRow> Store::journal(const std::string& code) {
    auto rows = game_rows(code);
    if (!rows) return {};
    return std::move(rows->journal);
}
GamePage Store::list(const GameQuery& q) {
    return wait_for<GamePage>([&](Executor ex, auto then) { read_page(q, ex, std::move(then)); });
}
OpenGameCounts Store::open_counts(const std::string& player_id, const std::string& address,
                                  const std::string& node) {
    return wait_for<OpenGameCounts>([&](Executor ex, auto then) {
        read_open_counts(player_id, address, node, ex, std::move(then));
    });
}
void Store::quarantine(const std::string& code, const std::string& why) {
    wait_for<bool>([&](Executor ex, Then<bool> then) {
        write_quarantine(code, why, [ex, then = std::move(then)](std::optional<std::string> err) {
            Read<bool> r;
            if (err)
                r.error = *err, r.fault = true;
            else
                r.value = true;
            boost::asio::post(ex, [then, r = std::move(r)]() mutable { then(std::move(r)); });
        });
    });
}

void BlockingReads::read_player(std::string selector, Executor ex,
                                Then<std::optional<StoredPlayer>> then) {
    answer<std::optional<StoredPlayer>>(
        reads_on(), ex, [this, s = std::move(selector)] { return load_player(s); },
        std::move(then));
}
void BlockingReads::read_code_taken(std::string code, Executor ex, Then<bool> then) {
    answer<bool>(
        reads_on(), ex, [this, c = std::move(code)] { return load_code_taken(c); },
        std::move(then));
}
void BlockingReads::read_game(std::string code, Executor ex, Then<std::optional<GameRows>> then) {
    answer<std::optional<GameRows>>(
        reads_on(), ex, [this, c = std::move(code)] { return load_game(c); }, std::move(then));
}
void BlockingReads::read_page(GameQuery q, Executor ex, Then<GamePage> then) {
    answer<GamePage>(
        reads_on(), ex, [this, q = std::move(q)] { return load_page(q); }, std::move(then));
}
void BlockingReads::read_account(std::string username, Executor ex,
                                 Then<std::optional<StoredAccount>> then) {
    answer<std::optional<StoredAccount>>(
        reads_on(), ex, [this, u = std::move(username)] { return load_account(u); },
        std::move(then));
}
void BlockingReads::read_ratings(std::string player_id, Executor ex,
                                 Then<std::vector<StoredRating>> then) {
    answer<std::vector<StoredRating>>(
        reads_on(), ex, [this, p = std::move(player_id)] { return load_ratings(p); },
        std::move(then));
}
void BlockingReads::read_leaderboard(std::string category, int limit, std::int64_t active_since_ms,
                                     bool bots, Executor ex, Then<std::vector<LeaderRow>> then) {
    answer<std::vector<LeaderRow>>(
        reads_on(), ex,
        [this, c = std::move(category), limit, active_since_ms, bots] {
            return load_leaderboard(c, limit, active_since_ms, bots);
        },
        std::move(then));
}
void BlockingReads::read_profile(std::string username, int recent, std::string viewer, Executor ex,
                                 Then<std::optional<PlayerProfile>> then) {
    answer<std::optional<PlayerProfile>>(
        reads_on(), ex,
        [this, u = std::move(username), recent, v = std::move(viewer)] {
            return load_profile(u, recent, v);
        },
        std::move(then));
}
void BlockingReads::read_unfinished(Executor ex, Then<std::vector<StoredGame>> then) {
    answer<std::vector<StoredGame>>(
        reads_on(), ex, [this] { return load_unfinished(); }, std::move(then));
}
void BlockingReads::write_quarantine(std::string code, std::string why, Done done) {
    auto job = [this, code = std::move(code), why = std::move(why), done = std::move(done)] {
        try {
            mark_quarantined(code, why);
        } catch (const std::exception& e) {
            return done(std::string(e.what()));
        }
        done(std::nullopt);
    };
    if (auto on = reads_on())
        boost::asio::post(on, std::move(job));
    else
        job();
}

}  // namespace tf::server
