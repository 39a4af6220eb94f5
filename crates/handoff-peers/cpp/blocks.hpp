// blocks.hpp — what every C++ peer shares: the message blocks, the dispatch on message size, and
// the adapter that turns a queue's small traits class into a handoff_transport table.
//
// C++ queues are templates over an element type; handoff's messages are opaque blocks whose size
// is known only when a queue is created. So each peer instantiates its queue for a Block<N> of
// every size handoff uses (Sizes), `create` picks the instantiation for its message_size, and the
// table's functions reach it through one virtual call (AnyQueue below). Those calls are
// noexcept: an exception thrown by a push or a pop (oneTBB failing to allocate a page) ends the
// process, which handoff reports as the trial's crash.
//
// A peer is a traits class P:
//
//     struct P {
//         static constexpr Info info = {...};      // name, description, semantics
//         template <class T> struct Queue {        // the library's queue of T
//             explicit Queue(const Request &r);    // may throw Refused("reason")
//             bool push(const T &m);               // non-blocking, true if pushed
//             bool pop(T &m);                      // non-blocking, true if popped
//             std::size_t push_batch(const T *m, std::size_t n);  // optional: how many pushed
//             std::size_t drain(T *out, std::size_t max);         // optional: how many popped
//         };
//     };
//
// and its entry point returns handoff_peers::plugin<P>("name") (several traits: several
// transports in one table).
#pragma once

#include "handoff.h"

#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <new>
#include <stdexcept>
#include <type_traits>
#include <utility>

namespace handoff_peers {

// A message of N bytes as a queue sees it: trivially copyable, aligned like every block handoff
// passes (8 bytes), so a pointer handoff passes can be read as a Block<N>.
template <std::size_t N> struct Block {
    alignas(8) unsigned char bytes[N];
};

// Every message size handoff uses: the payloads (8, 16, 64, 256, 1024, 4096 bytes; report64 is
// 64, event488 488) and each of them plus 16 bytes of latency stamps in open-loop runs.
#define HANDOFF_PEER_SIZES 8, 16, 24, 32, 64, 80, 256, 272, 488, 504, 1024, 1040, 4096, 4112
#define HANDOFF_PEER_STRING(...) #__VA_ARGS__
#define HANDOFF_PEER_LIST(...) HANDOFF_PEER_STRING(__VA_ARGS__)
using Sizes = std::index_sequence<HANDOFF_PEER_SIZES>;

// What a transport declares (the handoff_transport fields that are not functions). max_capacity
// is the largest capacity the queue takes (0: no limit but memory).
struct Info {
    const char *name;
    const char *description;
    uint32_t producers, consumers, ordering, flags;
    uint64_t min_capacity, max_capacity;
};

// What `create` was asked for.
struct Request {
    uint64_t capacity;
    uint32_t message_size, producers, consumers;
};

// Thrown by a queue's constructor that cannot hold what was asked; `what()` is the reason.
struct Refused : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// One queue of one block size, as the table's functions see it.
struct AnyQueue {
    virtual ~AnyQueue() = default;
    virtual int try_push(const void *message) noexcept = 0;
    virtual std::size_t try_push_batch(const void *messages, std::size_t n) noexcept = 0;
    virtual int try_pop(void *out) noexcept = 0;
    virtual std::size_t drain(void *out, std::size_t max) noexcept = 0;
};

// Whether a queue has the optional batch calls.
template <class Q, class = void> struct has_push_batch : std::false_type {};
template <class Q>
struct has_push_batch<Q, std::void_t<decltype(&Q::push_batch)>> : std::true_type {};
template <class Q, class = void> struct has_drain : std::false_type {};
template <class Q> struct has_drain<Q, std::void_t<decltype(&Q::drain)>> : std::true_type {};

// The queue Q of Block<N> behind the virtual calls.
template <class Q, std::size_t N> struct Sized final : AnyQueue {
    using T = Block<N>;
    static_assert(sizeof(T) == N && std::is_trivially_copyable_v<T>);
    Q q;

    explicit Sized(const Request &r) : q(r) {}
    int try_push(const void *m) noexcept override { return q.push(*static_cast<const T *>(m)); }
    int try_pop(void *out) noexcept override { return q.pop(*static_cast<T *>(out)); }
    std::size_t try_push_batch(const void *m, std::size_t n) noexcept override {
        if constexpr (has_push_batch<Q>::value)
            return q.push_batch(static_cast<const T *>(m), n);
        else
            return 0; // not in the table
    }
    std::size_t drain(void *out, std::size_t max) noexcept override {
        if constexpr (has_drain<Q>::value)
            return q.drain(static_cast<T *>(out), max);
        else
            return 0; // not in the table
    }
};

// Writes a one-line reason for a failed `create` and returns NULL.
[[gnu::format(printf, 3, 4)]] inline void *refuse(char *error, std::size_t error_len,
                                                  const char *format, ...) {
    if (error_len > 0) {
        va_list args;
        va_start(args, format);
        std::vsnprintf(error, error_len, format, args);
        va_end(args);
    }
    return nullptr;
}

// The queue for r.message_size, or NULL if no Block<N> has that size.
template <class P, std::size_t... N> AnyQueue *make(const Request &r, std::index_sequence<N...>) {
    AnyQueue *q = nullptr;
    ((r.message_size == N && (q = new Sized<typename P::template Queue<Block<N>>, N>(r))) || ...);
    return q;
}

// Refuses what the declaration alone rules out, then makes the queue for message_size.
template <class P>
void *create(uint64_t capacity, uint32_t message_size, uint32_t producers, uint32_t consumers,
             char *error, std::size_t error_len) noexcept {
    const Info &i = P::info;
    const auto cap = static_cast<unsigned long long>(capacity);
    if (producers == 0 || (i.producers == HANDOFF_ONE && producers != 1))
        return refuse(error, error_len, "%s takes one producer, not %u", i.name, producers);
    if (consumers == 0 || (i.consumers == HANDOFF_ONE && consumers != 1))
        return refuse(error, error_len, "%s takes one consumer, not %u", i.name, consumers);
    if (capacity < i.min_capacity)
        return refuse(error, error_len, "capacity %llu is below %llu, the least %s holds", cap,
                      static_cast<unsigned long long>(i.min_capacity), i.name);
    if ((i.flags & HANDOFF_POWER_OF_TWO) && (capacity & (capacity - 1)) != 0)
        return refuse(error, error_len, "capacity %llu is not a power of two, as %s needs", cap,
                      i.name);
    if (i.max_capacity != 0 && capacity > i.max_capacity)
        return refuse(error, error_len, "capacity %llu is above %llu, the most %s takes", cap,
                      static_cast<unsigned long long>(i.max_capacity), i.name);
    try {
        if (AnyQueue *q = make<P>(Request{capacity, message_size, producers, consumers}, Sizes{}))
            return q;
        return refuse(error, error_len, "message size %u is not supported (sizes: %s)",
                      message_size, HANDOFF_PEER_LIST(HANDOFF_PEER_SIZES));
    } catch (const std::bad_alloc &) {
        return refuse(error, error_len, "out of memory for %llu blocks of %u bytes", cap,
                      message_size);
    } catch (const std::exception &e) {
        return refuse(error, error_len, "%s", e.what());
    }
}

inline int try_push(void *q, const void *m) { return static_cast<AnyQueue *>(q)->try_push(m); }
inline std::size_t try_push_batch(void *q, const void *m, std::size_t n) {
    return static_cast<AnyQueue *>(q)->try_push_batch(m, n);
}
inline int try_pop(void *q, void *out) { return static_cast<AnyQueue *>(q)->try_pop(out); }
inline std::size_t drain(void *q, void *out, std::size_t max) {
    return static_cast<AnyQueue *>(q)->drain(out, max);
}
inline void destroy(void *q) { delete static_cast<AnyQueue *>(q); }

// The table entry of traits P. Queues never wait: no blocking push or pop, no close.
template <class P> handoff_transport transport() {
    using Probe = typename P::template Queue<Block<8>>;
    const Info &i = P::info;
    return handoff_transport{i.name, i.description, "C++", i.producers, i.consumers, i.ordering,
                             i.flags, i.min_capacity, &create<P>, &try_push,
                             has_push_batch<Probe>::value ? &try_push_batch : nullptr, &try_pop,
                             has_drain<Probe>::value ? &drain : nullptr, nullptr, nullptr,
                             nullptr, &destroy};
}

// The plugin table of traits P..., built on the first call and kept for the process.
template <class... P> const handoff_plugin *plugin(const char *name) {
    static const handoff_transport transports[] = {transport<P>()...};
    static const handoff_plugin table = {HANDOFF_ABI_VERSION, sizeof(handoff_transport), name,
                                         sizeof...(P), transports};
    return &table;
}

} // namespace handoff_peers
