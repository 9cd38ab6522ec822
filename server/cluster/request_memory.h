// The owner's memory of one stand-in's numbered requests (PROTOCOL.md "With several nodes": a
// request is run at most once and answered exactly once). The origin numbers each request of a
// connection and sends it again, with the same number, whenever it cannot know that the owner
// ran it (a lost answer, a takeover, a bus outage): each number is admitted once; a repeat is
// dropped while the first is waiting or running (its answer will come) and answered again from
// memory once it was answered. A request that did not run (it found no room of its game here)
// is forgotten, so that its re-send runs. Thread-safe: requests are admitted on the bus's
// thread, run on the stand-in's strand, and rooms answer or drop them on theirs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>

#include "server/base/participant.h"

namespace tf::server::cluster_detail {

class RequestMemory {
  public:
    enum class Verdict {
        Run,    // first seen: run it (remembered as waiting)
        Drop,   // waiting or running: its answer will come
        Again,  // answered already: send `answer` again
    };
    struct Admitted {
        Verdict verdict = Verdict::Run;
        Msg answer;
    };
    // Request `seq` (not 0) about game `code`, answered by messages naming `ref` ("" for a
    // request without one) came.
    Admitted admit(std::uint64_t seq, std::string ref, std::string code);
    // The stand-in's strand starts running request `seq`.
    void start(std::uint64_t seq);
    // A message naming `ref` goes to the origin: the number of the request it answers (the
    // oldest one running with that ref and not answered yet, now remembered with `answer`),
    // or 0.
    std::uint64_t answer(const std::string& ref, const Msg& answer);
    // Request `seq` found no room of its game here and was not run.
    void not_run(std::uint64_t seq);
    // The room of `code` was dropped with what it was running (another node owns the game):
    // the requests it ran and did not answer are forgotten. Those still waiting to run stay:
    // they run, and either find a room or are forgotten by not_run().
    void dropped(const std::string& code);

    static constexpr std::size_t kRemembered = 256;

  private:
    struct Entry {
        std::uint64_t seq = 0;
        std::string ref;
        std::string code;
        bool started = false;
        Msg answer;
    };
    std::mutex m_;
    std::deque<Entry> entries_;
};

}  // namespace tf::server::cluster_detail
