// atomic-queue-spsc and atomic-queue-mpmc: atomic_queue::AtomicQueueB2 (Debian:
// libatomic-queue-dev), sized at run time, tuned for throughput (MAXIMIZE_THROUGHPUT), without
// total order, in its SPSC and its MPMC form. Each slot has a state of its own, and the slot
// indices are shuffled so that neighbours sit on different cache lines; for that the ring rounds
// its size up to a power of two of at least 2^(2 * bits), bits being log2 of the states per
// cache line (64 on x86-64, so at least 4096). The declared minimum is that floor and capacities
// must be powers of two, so the queue holds exactly what is asked. A try_ call that has claimed a
// slot waits, spinning, for the other side to finish with it (a preempted peer stalls it).
//
// The MPMC form keeps no order, not even each producer's: a producer claims a slot (head) and
// then waits for it to be empty, and the room check counts slots consumers have claimed, not
// emptied. So a producer preempted between the two can be overtaken on its slot by a producer a
// lap ahead; the consumer of this lap takes the later block, and the preempted producer's block
// waits a whole lap, behind that producer's later ones. It is declared unordered (every block
// exactly once), which is all it promises.
#include "blocks.hpp"

#include <atomic_queue/atomic_queue.h>

namespace {

// The smallest ring AtomicQueueB2 makes (its constructor's floor, from the same constants).
constexpr uint64_t least_ring =
    1u << (2 * atomic_queue::details::GetCacheLineIndexBits<atomic_queue::CACHE_LINE_SIZE>::value);

template <bool SPSC> struct AtomicQueue {
    static constexpr handoff_peers::Info info = {
        SPSC ? "atomic-queue-spsc" : "atomic-queue-mpmc",
        SPSC ? "atomic_queue::AtomicQueueB2, SPSC form (a state per slot, throughput-tuned); "
               "capacity a power of two, at least 4096"
             : "atomic_queue::AtomicQueueB2, MPMC form (a state per slot, throughput-tuned); "
               "unordered: a producer stalled on its slot is overtaken; capacity 2^n >= 4096",
        SPSC ? HANDOFF_ONE : HANDOFF_MANY, SPSC ? HANDOFF_ONE : HANDOFF_MANY,
        SPSC ? HANDOFF_FIFO : HANDOFF_UNORDERED, HANDOFF_POWER_OF_TWO, least_ring,
        1u << 30}; // head - tail is compared as an int

    template <class T> struct Queue {
        atomic_queue::AtomicQueueB2<T, std::allocator<T>, true, false, SPSC> q;

        explicit Queue(const handoff_peers::Request &r) : q(static_cast<unsigned>(r.capacity)) {
            if (q.capacity() != r.capacity)
                throw handoff_peers::Refused("atomic_queue made a ring of another size than asked");
        }
        bool push(const T &m) { return q.try_push(m); }
        bool pop(T &m) { return q.try_pop(m); }
    };
};

} // namespace

extern "C" const handoff_plugin *handoff_peer_atomic_queue(void) {
    return handoff_peers::plugin<AtomicQueue<true>, AtomicQueue<false>>("atomic-queue");
}
