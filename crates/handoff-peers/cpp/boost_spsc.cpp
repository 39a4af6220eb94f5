// boost-spsc: boost::lockfree::spsc_queue (Debian: libboost-dev), sized at run time. It holds
// exactly `capacity` blocks (its ring has one slot more, to tell full from empty), any capacity
// from 1; batches are its push and pop of arrays, each publishing or releasing once.
#include "blocks.hpp"

#include <boost/lockfree/spsc_queue.hpp>

namespace {

struct BoostSpsc {
    static constexpr handoff_peers::Info info = {
        "boost-spsc",
        "boost::lockfree::spsc_queue (bounded SPSC ring, wait-free), batches via push/pop of "
        "arrays",
        HANDOFF_ONE, HANDOFF_ONE, HANDOFF_FIFO, 0, 1, 0};

    template <class T> struct Queue {
        boost::lockfree::spsc_queue<T> q;

        explicit Queue(const handoff_peers::Request &r) : q(r.capacity) {}
        bool push(const T &m) { return q.push(m); }
        bool pop(T &m) { return q.pop(m); }
        std::size_t push_batch(const T *m, std::size_t n) { return q.push(m, n); }
        std::size_t drain(T *out, std::size_t max) { return q.pop(out, max); }
    };
};

} // namespace

extern "C" const handoff_plugin *handoff_peer_boost_spsc(void) {
    return handoff_peers::plugin<BoostSpsc>("boost-spsc");
}
