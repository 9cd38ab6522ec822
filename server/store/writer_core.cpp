#include "server/store/writer_core.h"

#include "server/base/metrics.h"

#include <spdlog/spdlog.h>

namespace tf::server {

WriteOp WriteOp::game(GameWrite w, Store::Done done) {
    WriteOp op;
    op.write = std::move(w);
    op.done = std::move(done);
    return op;
}

WriteOp WriteOp::new_player(StoredPlayer p, Store::Done done) {
    WriteOp op;
    op.player = std::move(p);
    op.done = std::move(done);
    return op;
}

WriteOp WriteOp::account_request(AccountWrite w, std::function<void(AccountResult)> done) {
    WriteOp op;
    op.account = std::move(w);
    op.account_done = std::move(done);
    return op;
}

std::string WriteOp::what() const {
    return !write.code.empty() ? "game " + write.code
           : player            ? "player " + player->id
           : account           ? "the account of " + account->player_id
                               : std::string("an empty write");
}

WriterCore::WriterCore(std::chrono::milliseconds first_backoff,
                       std::chrono::milliseconds max_backoff, std::string retrying)
    : first_backoff_(first_backoff),
      max_backoff_(max_backoff),
      retrying_(std::move(retrying)),
      backoff_(first_backoff) {}

void WriterCore::report(WriteOp& op, const std::optional<std::string>& err, bool fault) {
    const double ms = std::chrono::duration<double, std::milli>(Clock::now() - op.queued).count();
    {
        std::lock_guard lock(sm_);
        ++stats_.operations;
        latency_.push_back(ms);
        if (latency_.size() > 8192) latency_.pop_front();
        if (err && !op.account) ++stats_.failures;
    }
    metrics().commit_latency.observe(ms);
    if (op.account) {  // its own answer; a refused account request is no bug
        AccountResult r{!err, err && !fault, err && fault, err ? *err : ""};
        if (err && fault) ++metrics().store_failures;
        if (op.account_done) op.account_done(r);
        --pending_;
        return;
    }
    if (err) {
        if (fault)
            spdlog::debug("store: write of {} failed: {}", op.what(), *err);
        else
            spdlog::error("store: write of {} failed: {}", op.what(), *err);
        if (op.player) unsaved_players.push_back(*op.player);
        ++metrics().store_failures;
    }
    if (op.done) op.done(err);
    --pending_;
}

void WriterCore::count_commit() {
    std::lock_guard lock(sm_);
    ++stats_.commits;
}

void WriterCore::failed(const std::string& what, const std::string& why, int operations) {
    last_error_ = why;
    if (healthy_) {
        healthy_ = false;
        ++metrics().store_episodes;
        const auto now = Clock::now();
        // Failing again soon after recovering: the backoff goes on growing, and the log says so
        // at most once a minute.
        const bool recent = now - episode_end_ < std::chrono::seconds(60);
        backoff_ = recent ? std::min(backoff_ * 2, max_backoff_) : first_backoff_;
        episode_start_ = now;
        episode_failures_ = 0;
        episode_logged_ = !recent || now - last_logged_ > std::chrono::seconds(60);
        if (episode_logged_) {
            last_logged_ = now;
            spdlog::error(
                "store: writes fail ({}: {}); games that write are suspended and new games "
                "refused until writes succeed again ({})",
                what, why, retrying_);
        }
    } else {
        backoff_ = std::min(backoff_ * 2, max_backoff_);
    }
    episode_failures_ += operations;
}

bool WriterCore::succeeded() {
    if (healthy_) return false;
    healthy_ = true;
    episode_end_ = Clock::now();
    const double s = std::chrono::duration<double>(episode_end_ - episode_start_).count();
    if (episode_logged_)
        spdlog::warn("store: writes succeed again after {:.1f} s ({} operations failed meanwhile)",
                     s, episode_failures_);
    return true;
}

Store::Stats WriterCore::stats() {
    std::lock_guard lock(sm_);
    Store::Stats s = stats_;
    s.latency_ms.assign(latency_.begin(), latency_.end());
    return s;
}

}  // namespace tf::server
