//go:build ignore

/* A check of a handoff plugin without handoff (the line above keeps it out of the Go build). It
 * loads the library, streams numbered blocks through each transport of the Go plugin and checks
 * that every block arrives once, in each producer's order, intact; that the non-blocking calls
 * honour the capacity; that what cannot be made is refused with a reason; and that destroyed
 * queues are freed.
 *
 *   scripts/build-plugins
 *   cc -O2 -pthread -I include -o target/go-smoke plugins/go/smoke.c -ldl
 *   target/go-smoke target/plugins/libhandoff_go.so
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "handoff.h"

#define BATCH 64    /* blocks a producer offers at once */
#define DRAIN 256   /* blocks a consumer takes at once */
#define MAX_PRODUCERS 4

static int failures;

#define CHECK(cond, ...)                                                                          \
    do {                                                                                          \
        if (!(cond)) {                                                                            \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                                  \
            fprintf(stderr, __VA_ARGS__);                                                         \
            fputc('\n', stderr);                                                                  \
            failures++;                                                                           \
        }                                                                                         \
    } while (0)

/* A block: producer id (top 16 bits) and sequence number, then a body derived from both. */
static void fill(unsigned char *b, size_t size, uint32_t producer, uint64_t seq) {
    uint64_t head = (uint64_t)producer << 48 | seq;
    memcpy(b, &head, 8);
    for (size_t i = 8; i < size; i++) b[i] = (unsigned char)(seq * 31 + producer * 7 + i);
}

static int intact(const unsigned char *b, size_t size, uint32_t *producer, uint64_t *seq) {
    uint64_t head;
    memcpy(&head, b, 8);
    *producer = (uint32_t)(head >> 48);
    *seq = head & ((1ull << 48) - 1);
    for (size_t i = 8; i < size; i++)
        if (b[i] != (unsigned char)(*seq * 31 + *producer * 7 + i)) return 0;
    return 1;
}

typedef struct {
    const handoff_transport *t;
    void *q;
    uint32_t size, producers;
    uint64_t per_producer;
    uint32_t id;                          /* producer id */
    unsigned char *seen;                  /* [producer][seq], shared by the consumers */
    uint64_t received, bad, dups, disorder;
    uint64_t by_call[2]; /* producers: blocks by try_push_batch, by push; consumers: drain, pop */
} stream;

static void *produce(void *arg) {
    stream *s = arg;
    unsigned char *buf = aligned_alloc(8, (size_t)BATCH * s->size);
    for (uint64_t seq = 0, chunk = 0; seq < s->per_producer; chunk++) {
        size_t n = s->per_producer - seq < BATCH ? s->per_producer - seq : BATCH;
        for (size_t i = 0; i < n; i++) fill(buf + i * s->size, s->size, s->id, seq + i);
        if (chunk % 2 == 0) { /* one by one, blocking */
            for (size_t i = 0; i < n; i++) CHECK(s->t->push(s->q, buf + i * s->size), "push");
            s->by_call[1] += n;
        } else { /* in batches, as handoff does: a push when the batch finds no room */
            for (size_t done = 0; done < n;) {
                size_t k = s->t->try_push_batch(s->q, buf + done * s->size, n - done);
                s->by_call[0] += k;
                if (k == 0) {
                    CHECK(s->t->push(s->q, buf + done * s->size), "push");
                    s->by_call[1]++;
                    k = 1;
                }
                done += k;
            }
        }
        seq += n;
    }
    free(buf);
    return NULL;
}

static void *consume(void *arg) {
    stream *s = arg;
    unsigned char *buf = aligned_alloc(8, (size_t)DRAIN * s->size);
    uint64_t next[MAX_PRODUCERS] = {0};
    for (;;) {
        size_t n = s->t->drain(s->q, buf, DRAIN);
        s->by_call[0] += n;
        if (n == 0) {
            if (!s->t->pop(s->q, buf)) break; /* closed and empty */
            s->by_call[1]++;
            n = 1;
        }
        for (size_t i = 0; i < n; i++) {
            uint32_t p;
            uint64_t seq;
            if (!intact(buf + i * s->size, s->size, &p, &seq) || p >= s->producers ||
                seq >= s->per_producer) {
                s->bad++;
                continue;
            }
            if (seq < next[p]) s->disorder++;
            next[p] = seq + 1;
            unsigned char *mark = &s->seen[p * s->per_producer + seq];
            if (__atomic_exchange_n(mark, 1, __ATOMIC_RELAXED)) s->dups++;
            s->received++;
        }
    }
    free(buf);
    return NULL;
}

/* producers x consumers threads stream `total` blocks of `size` bytes through a new queue. */
static void run_stream(const handoff_transport *t, uint64_t capacity, uint32_t size,
                       uint32_t producers, uint32_t consumers, uint64_t total) {
    char err[256] = "";
    void *q = t->create(capacity, size, producers, consumers, err, sizeof err);
    CHECK(q, "%s create: %s", t->name, err);
    if (!q) return;
    uint64_t per = total / producers;
    unsigned char *seen = calloc(producers * per, 1);
    stream ps[MAX_PRODUCERS], cs[MAX_PRODUCERS];
    pthread_t pt[MAX_PRODUCERS], ct[MAX_PRODUCERS];
    stream base = {.t = t, .q = q, .size = size, .producers = producers, .per_producer = per,
                   .seen = seen};
    for (uint32_t i = 0; i < consumers; i++) {
        cs[i] = base;
        pthread_create(&ct[i], NULL, consume, &cs[i]);
    }
    for (uint32_t i = 0; i < producers; i++) {
        ps[i] = base;
        ps[i].id = i;
        pthread_create(&pt[i], NULL, produce, &ps[i]);
    }
    for (uint32_t i = 0; i < producers; i++) pthread_join(pt[i], NULL);
    t->close(q);
    uint64_t received = 0, bad = 0, dups = 0, disorder = 0, missing = 0;
    uint64_t batched = 0, pushed = 0, drained = 0, popped = 0;
    for (uint32_t i = 0; i < producers; i++) batched += ps[i].by_call[0], pushed += ps[i].by_call[1];
    for (uint32_t i = 0; i < consumers; i++) {
        pthread_join(ct[i], NULL);
        received += cs[i].received, bad += cs[i].bad, dups += cs[i].dups;
        disorder += cs[i].disorder;
        drained += cs[i].by_call[0], popped += cs[i].by_call[1];
    }
    for (uint64_t i = 0; i < producers * per; i++) missing += !seen[i];
    printf("%-18s capacity %-4llu size %-4u %up/%uc: %llu sent, %llu received, %llu missing, "
           "%llu duplicated, %llu out of order, %llu corrupt\n",
           t->name, (unsigned long long)capacity, size, producers, consumers,
           (unsigned long long)(producers * per), (unsigned long long)received,
           (unsigned long long)missing, (unsigned long long)dups, (unsigned long long)disorder,
           (unsigned long long)bad);
    printf("%-18s %llu pushed by try_push_batch, %llu by push; %llu popped by drain, %llu by pop\n",
           "", (unsigned long long)batched, (unsigned long long)pushed,
           (unsigned long long)drained, (unsigned long long)popped);
    CHECK(received == producers * per && !missing && !dups && !disorder && !bad, "%s stream",
          t->name);
    unsigned char *block = malloc(size);
    CHECK(t->try_pop(q, block) == 0 && t->drain(q, block, 1) == 0 && t->pop(q, block) == 0,
          "a closed, empty queue gives nothing");
    free(block);
    t->destroy(q);
    free(seen);
}

static long status(const char *field) { /* a line of /proc/self/status, in its own unit */
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long v = -1;
    size_t n = strlen(field);
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, field, n) && line[n] == ':') v = atol(line + n + 1);
    if (f) fclose(f);
    return v;
}

static const handoff_transport *find(const handoff_plugin *p, const char *name) {
    for (size_t i = 0; i < p->count; i++)
        if (!strcmp(p->transports[i].name, name)) return &p->transports[i];
    return NULL;
}

static void refuses(const handoff_transport *t, uint64_t capacity, uint32_t size) {
    char err[256] = "";
    void *q = t->create(capacity, size, 1, 1, err, sizeof err);
    CHECK(!q && err[0], "%s refuses capacity %llu, size %u", t->name,
          (unsigned long long)capacity, size);
    printf("%s, capacity %llu, size %u: refused: %s\n", t->name, (unsigned long long)capacity,
           size, err);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s LIBRARY\n", argv[0]);
        return 2;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    alarm(300); /* a deadlock ends the check */
    void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        fprintf(stderr, "%s\n", dlerror());
        return 1;
    }
    const handoff_plugin *(*entry)(void) =
        (const handoff_plugin *(*)(void))dlsym(lib, HANDOFF_ENTRY_POINT);
    const handoff_plugin *p = entry ? entry() : NULL;
    if (!p || p->abi_version != HANDOFF_ABI_VERSION ||
        p->transport_size != sizeof(handoff_transport)) {
        fprintf(stderr, "no plugin of ABI version %u in %s\n", HANDOFF_ABI_VERSION, argv[1]);
        return 1;
    }
    printf("plugin %s: %zu transports; threads after loading: %ld\n", p->name, p->count,
           status("Threads"));
    const handoff_transport *chan = find(p, "go-chan"), *rv = find(p, "go-chan-rendezvous");
    if (!chan || !rv) {
        fprintf(stderr, "go-chan or go-chan-rendezvous missing\n");
        return 1;
    }

    refuses(chan, 1024, 100);
    refuses(chan, 0, 64);
    refuses(rv, 1, 64);
    refuses(chan, 1ull << 62, 4096);

    /* Room, non-blocking calls and a destroy with blocks left, on one thread. */
    char err[256];
    void *q = chan->create(1024, 64, 1, 1, err, sizeof err);
    unsigned char block[64], out[64];
    uint64_t pushed = 0, popped = 0;
    for (;; pushed++) {
        fill(block, 64, 0, pushed);
        if (!chan->try_push(q, block)) break;
    }
    for (; chan->try_pop(q, out); popped++) {
        uint32_t producer;
        uint64_t seq;
        CHECK(intact(out, 64, &producer, &seq) && seq == popped, "try_pop order");
    }
    printf("go-chan capacity 1024: try_push took %llu, try_pop gave %llu\n",
           (unsigned long long)pushed, (unsigned long long)popped);
    CHECK(pushed == 1024 && popped == 1024, "capacity honoured");
    for (int i = 0; i < 10; i++) chan->try_push(q, block);
    chan->destroy(q);
    q = rv->create(0, 64, 1, 1, err, sizeof err);
    CHECK(rv->try_push(q, block) == 0 && rv->try_pop(q, out) == 0,
          "a rendezvous takes nothing without a partner");
    rv->destroy(q);

    run_stream(chan, 1024, 64, 1, 1, 1000000);
    run_stream(rv, 0, 64, 1, 1, 1000000);
    run_stream(chan, 1024, 4112, 1, 1, 200000);
    run_stream(chan, 16, 24, 2, 2, 400000);
    run_stream(rv, 0, 8, 2, 2, 400000);

    /* Queues are freed: 300 queues of 4 MiB each, made, filled a little and destroyed. */
    long rss = status("VmRSS");
    for (int i = 0; i < 300; i++) {
        void *big = chan->create(1024, 4112, 1, 1, err, sizeof err);
        unsigned char b[4112] = {0};
        for (int j = 0; j < 100; j++) chan->try_push(big, b);
        CHECK((uintptr_t)big <= 2, "handles are reused");
        chan->destroy(big);
    }
    printf("300 queues of 1024 x 4112 bytes made and destroyed: RSS %ld -> %ld KiB; threads %ld\n",
           rss, status("VmRSS"), status("Threads"));

    printf(failures ? "FAILED (%d)\n" : "ok\n", failures);
    return failures != 0;
}
