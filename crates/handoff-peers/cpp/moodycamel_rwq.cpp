// moodycamel-rwq: moodycamel::ReaderWriterQueue (Debian: libreaderwriterqueue-dev), used only
// through try_enqueue and try_dequeue, which never allocate: the queue keeps the blocks of slots
// it was created with. Those hold more than asked. For a capacity below 1024 it is one block of
// 2^k slots, 2^k the least power of two above the capacity, holding 2^k - 1 (capacity 4 holds 7);
// from 1024 it is (capacity + 1021) / 511 blocks of 512 slots, of which 511 each are usable, and
// the producer cannot enter the block the consumer is still reading, so what it holds at a given
// moment lies between the capacity and all those slots. The queue has no batch calls.
#include "blocks.hpp"

#include <readerwriterqueue/readerwriterqueue.h>

namespace {

struct Rwq {
    static constexpr handoff_peers::Info info = {
        "moodycamel-rwq",
        "moodycamel::ReaderWriterQueue (SPSC, lock-free) via try_enqueue/try_dequeue, which never "
        "allocate; holds more than asked (2^k-1 >= capacity; 511-slot blocks from 1024)",
        HANDOFF_ONE, HANDOFF_ONE, HANDOFF_FIFO, 0, 1, 0};

    template <class T> struct Queue {
        moodycamel::ReaderWriterQueue<T> q;

        explicit Queue(const handoff_peers::Request &r) : q(r.capacity) {}
        bool push(const T &m) { return q.try_enqueue(m); }
        bool pop(T &m) { return q.try_dequeue(m); }
    };
};

} // namespace

extern "C" const handoff_plugin *handoff_peer_moodycamel_rwq(void) {
    return handoff_peers::plugin<Rwq>("moodycamel-rwq");
}
