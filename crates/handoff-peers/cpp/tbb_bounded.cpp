// tbb-bounded: oneTBB's concurrent_bounded_queue (Debian: libtbb-dev, linked with libtbb), with
// set_capacity and the non-blocking try_push and try_pop. It holds exactly `capacity` blocks
// (try_push refuses once tail - head reaches it), any capacity from 1; its slots live in pages
// allocated and freed as it fills and empties. The queue has no batch calls.
#include "blocks.hpp"

#include <oneapi/tbb/concurrent_queue.h>

namespace {

struct TbbBounded {
    static constexpr handoff_peers::Info info = {
        "tbb-bounded",
        "oneTBB concurrent_bounded_queue (MPMC, set_capacity) via try_push/try_pop; slots in "
        "pages allocated as it fills",
        HANDOFF_MANY, HANDOFF_MANY, HANDOFF_FIFO_PER_PRODUCER, 0, 1,
        PTRDIFF_MAX}; // set_capacity takes a signed size

    template <class T> struct Queue {
        tbb::concurrent_bounded_queue<T> q;

        explicit Queue(const handoff_peers::Request &r) {
            q.set_capacity(static_cast<std::ptrdiff_t>(r.capacity));
        }
        bool push(const T &m) { return q.try_push(m); }
        bool pop(T &m) { return q.try_pop(m); }
    };
};

} // namespace

extern "C" const handoff_plugin *handoff_peer_tbb_bounded(void) {
    return handoff_peers::plugin<TbbBounded>("tbb-bounded");
}
