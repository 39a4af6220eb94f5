// moodycamel-cq: moodycamel::ConcurrentQueue (Debian: libconcurrentqueue-dev), used only through
// its try_ calls with implicit producers (a sub-queue per producer thread, made on its first
// push). Those calls never allocate blocks of slots: the queue is bounded by the blocks made at
// creation, which the library sizes for at least `capacity` blocks in the queue at any moment
// with this many producers: ceil(capacity / 32) - 1 blocks of 32 slots, plus 2 per producer. A
// producer takes a whole block at a time and a block returns to the pool only when all its 32
// slots have been popped, so the queue holds at least `capacity` and at most those 32-slot
// blocks. Each producer's sub-queue indexes its blocks in an array fixed at compile time (Traits
// below); the default of 32 entries would cap one producer at 1024 blocks of messages, so it is
// raised, and capacities above what it covers are refused. try_enqueue_bulk is all-or-nothing:
// a batch that does not fit is halved until it does.
#include "blocks.hpp"

#include <concurrentqueue/concurrentqueue.h>

#include <cstdlib>
#include <new>

namespace {

struct Traits : moodycamel::ConcurrentQueueDefaultTraits {
    // Blocks one producer's sub-queue can index: room for every block the largest accepted
    // capacity makes, with up to 1024 producers (96 KiB per producer, written on its first push;
    // room for 2^20 would be 1.5 MiB, a cost inside the first sample's timing).
    static const std::size_t IMPLICIT_INITIAL_INDEX_SIZE = 4096;

    // The library takes a failed allocation quietly: at creation it would leave the queue with no
    // blocks, one that refuses every push. Thrown instead, it is a refusal of `create`.
    static void *malloc(std::size_t size) {
        if (void *p = std::malloc(size))
            return p;
        throw std::bad_alloc();
    }
};

struct Cq {
    static constexpr handoff_peers::Info info = {
        "moodycamel-cq",
        "moodycamel::ConcurrentQueue (MPMC, lock-free, a sub-queue per producer thread) via try_ "
        "calls, which never allocate: holds capacity or more (32-slot blocks, 2 more per producer)",
        HANDOFF_MANY, HANDOFF_MANY, HANDOFF_FIFO_PER_PRODUCER, 0, 1,
        Traits::BLOCK_SIZE * Traits::IMPLICIT_INITIAL_INDEX_SIZE / 2};

    template <class T> struct Queue {
        moodycamel::ConcurrentQueue<T, Traits> q;

        // Blocks for `capacity` with no explicit (token) producers and `producers` implicit ones.
        explicit Queue(const handoff_peers::Request &r) : q(r.capacity, 0, r.producers) {}
        bool push(const T &m) { return q.try_enqueue(m); }
        bool pop(T &m) { return q.try_dequeue(m); }
        std::size_t push_batch(const T *m, std::size_t n) {
            for (; n > 0; n /= 2)
                if (q.try_enqueue_bulk(m, n))
                    return n;
            return 0;
        }
        std::size_t drain(T *out, std::size_t max) { return q.try_dequeue_bulk(out, max); }
    };
};

} // namespace

extern "C" const handoff_plugin *handoff_peer_moodycamel_cq(void) {
    return handoff_peers::plugin<Cq>("moodycamel-cq");
}
