#include "server/cluster/request_memory.h"

#include <algorithm>

namespace tf::server::cluster_detail {

RequestMemory::Admitted RequestMemory::admit(std::uint64_t seq, std::string ref, std::string code) {
    std::lock_guard lock(m_);
    auto it = std::find_if(entries_.begin(), entries_.end(),
                           [seq](const Entry& e) { return e.seq == seq; });
    if (it != entries_.end())
        return it->answer ? Admitted{Verdict::Again, it->answer} : Admitted{Verdict::Drop, nullptr};
    entries_.push_back(Entry{seq, std::move(ref), std::move(code), false, nullptr});
    if (entries_.size() > kRemembered) entries_.pop_front();
    return {};
}

void RequestMemory::start(std::uint64_t seq) {
    std::lock_guard lock(m_);
    for (auto& e : entries_)
        if (e.seq == seq) e.started = true;
}

std::uint64_t RequestMemory::answer(const std::string& ref, const Msg& answer) {
    if (ref.empty()) return 0;
    std::lock_guard lock(m_);
    for (auto& e : entries_)
        if (e.started && !e.answer && e.ref == ref) {
            e.answer = answer;
            return e.seq;
        }
    return 0;
}

void RequestMemory::not_run(std::uint64_t seq) {
    std::lock_guard lock(m_);
    std::erase_if(entries_, [seq](const Entry& e) { return e.seq == seq && !e.answer; });
}

void RequestMemory::dropped(const std::string& code) {
    std::lock_guard lock(m_);
    std::erase_if(entries_,
                  [&](const Entry& e) { return e.started && !e.answer && e.code == code; });
}

}  // namespace tf::server::cluster_detail
