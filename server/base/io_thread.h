// Which threads run the network (the io_context): a blocking store read must never run on one,
// or one slow disk would stall every connection served there. main() marks them; the stores'
// blocking reads assert they are not on one (debug builds, as the sanitizer tree of the tests).
#pragma once

#include <cassert>

namespace tf::server {

inline thread_local bool tl_io_thread = false;

inline void mark_io_thread() {
    tl_io_thread = true;
}
inline bool on_io_thread() {
    return tl_io_thread;
}
// A store's own threads (its writer, its readers): a blocking read there would wait for itself.
inline thread_local bool tl_store_thread = false;
inline void mark_store_thread() {
    tl_store_thread = true;
}
inline bool on_store_thread() {
    return tl_store_thread;
}

inline void assert_off_io_thread() {
    assert(!on_io_thread() && "a blocking store read on a network thread");
}

}  // namespace tf::server
