// Package main is handoff's Go plugin: Go channels behind the C ABI of include/handoff.h, built
// with -buildmode=c-shared (scripts/build-plugins).
//
// Every call handoff makes is a call from C into Go (a cgo callback), and that crossing costs far
// more than an uncontended channel operation. So the batch calls, try_push_batch and drain, move
// up to n blocks in one crossing: the loop over the blocks runs inside Go.
//
// A process holds at most one Go runtime, and a library that starts one can never be unloaded
// (the linker marks it so). handoff loads plugins only inside the worker process of each trial,
// so a worker starts one runtime, runs one trial and exits.
package main

/*
#cgo CFLAGS: -I${SRCDIR}/../../include
#include <stdint.h>
#include <stddef.h>
*/
import "C"

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"
)

// A queue is one channel, whatever its element type.
type queue interface {
	tryPush(msg unsafe.Pointer) bool
	tryPushBatch(msgs unsafe.Pointer, n int) int
	tryPop(out unsafe.Pointer) bool
	drain(out unsafe.Pointer, max int) int
	push(msg unsafe.Pointer) bool
	pop(out unsafe.Pointer) bool
	close()
}

// A channel carries blocks of one size: T is [N]byte. Generics cannot take an array length, so
// each message size is its own instantiation (see makers). Blocks are copied in and out with typed
// copies from and to handoff's memory, so nothing is allocated per message.
type channel[T any] chan T

func (c channel[T]) tryPush(msg unsafe.Pointer) bool {
	select {
	case c <- *(*T)(msg):
		return true
	default:
		return false
	}
}

func (c channel[T]) tryPushBatch(msgs unsafe.Pointer, n int) int {
	blocks := unsafe.Slice((*T)(msgs), n)
	for i := range blocks {
		select {
		case c <- blocks[i]:
		default:
			return i
		}
	}
	return n
}

// The receives write to handoff's memory only when they got a block: a receive on a closed,
// empty channel succeeds at once with a zero value, which is no block.

func (c channel[T]) tryPop(out unsafe.Pointer) bool {
	select {
	case v, ok := <-c:
		if ok {
			*(*T)(out) = v
		}
		return ok
	default:
		return false
	}
}

// drain stops at the first empty receive; it also returns 0 on a closed and empty channel, where
// a receive would not block.
func (c channel[T]) drain(out unsafe.Pointer, max int) int {
	blocks := unsafe.Slice((*T)(out), max)
	for i := range blocks {
		select {
		case v, ok := <-c:
			if !ok {
				return i
			}
			blocks[i] = v
		default:
			return i
		}
	}
	return max
}

// push returns false if the channel was closed (a send on a closed channel panics in Go; handoff
// never does that, as it closes only after the last push returned).
func (c channel[T]) push(msg unsafe.Pointer) (pushed bool) {
	defer func() {
		if recover() != nil {
			pushed = false
		}
	}()
	c <- *(*T)(msg)
	return true
}

func (c channel[T]) pop(out unsafe.Pointer) bool {
	v, ok := <-c
	if ok {
		*(*T)(out) = v
	}
	return ok
}

func (c channel[T]) close() { close(c) }

func makeChannel[T any](capacity int) queue { return make(channel[T], capacity) }

// makers holds a constructor for each message size handoff uses: the payload sizes and each plus
// the 16 bytes of latency stamps of open-loop runs.
var makers = map[uint32]func(capacity int) queue{
	8: makeChannel[[8]byte], 24: makeChannel[[24]byte],
	16: makeChannel[[16]byte], 32: makeChannel[[32]byte],
	64: makeChannel[[64]byte], 80: makeChannel[[80]byte],
	256: makeChannel[[256]byte], 272: makeChannel[[272]byte],
	488: makeChannel[[488]byte], 504: makeChannel[[504]byte],
	1024: makeChannel[[1024]byte], 1040: makeChannel[[1040]byte],
	4096: makeChannel[[4096]byte], 4112: makeChannel[[4112]byte],
}

// Handles. C must not keep Go pointers, so handoff holds an index into queues instead: the handle
// is the index plus one (never NULL). A lookup is one atomic load, as cheap as it gets on a path
// taken once per call; the slice is copied on create and destroy, which are rare and never run
// while the queue concerned is in use.
var (
	registry sync.Mutex // serialises create and destroy
	queues   atomic.Pointer[[]queue]
)

func register(q queue) C.uintptr_t {
	registry.Lock()
	defer registry.Unlock()
	var live []queue
	if p := queues.Load(); p != nil {
		live = *p
	}
	next := append([]queue(nil), live...)
	slot := len(next)
	for i, q := range next {
		if q == nil {
			slot = i
			break
		}
	}
	if slot == len(next) {
		next = append(next, nil)
	}
	next[slot] = q
	queues.Store(&next)
	return C.uintptr_t(slot + 1)
}

func unregister(h C.uintptr_t) queue {
	registry.Lock()
	defer registry.Unlock()
	next := append([]queue(nil), *queues.Load()...)
	q := next[h-1]
	next[h-1] = nil
	queues.Store(&next)
	return q
}

func lookup(h C.uintptr_t) queue { return (*queues.Load())[h-1] }

// create makes a channel of `capacity` blocks of `size` bytes, or writes why not to errBuf and
// returns 0.
func create(capacity uint64, size uint32, errBuf *C.char, errLen C.size_t) (h C.uintptr_t) {
	maker := makers[size]
	if maker == nil {
		return fail(errBuf, errLen, "message size %d is not supported (sizes: %s)", size, supportedSizes())
	}
	tooLarge := func() C.uintptr_t {
		return fail(errBuf, errLen, "a Go channel cannot hold %d blocks of %d bytes", capacity, size)
	}
	if capacity > math.MaxInt {
		return tooLarge()
	}
	defer func() {
		if recover() != nil { // make's "size out of range"
			h = tooLarge()
		}
	}()
	return register(maker(int(capacity)))
}

func supportedSizes() string {
	sizes := make([]int, 0, len(makers))
	for size := range makers {
		sizes = append(sizes, int(size))
	}
	sort.Ints(sizes)
	return strings.Trim(fmt.Sprint(sizes), "[]")
}

// fail writes a one-line reason, NUL-terminated and cut to fit, into handoff's buffer.
func fail(errBuf *C.char, errLen C.size_t, format string, args ...any) C.uintptr_t {
	if errBuf != nil && errLen > 0 {
		buf := unsafe.Slice((*byte)(unsafe.Pointer(errBuf)), int(errLen))
		n := copy(buf[:len(buf)-1], fmt.Sprintf(format, args...))
		buf[n] = 0
	}
	return 0
}

// The functions below are the transports' entries, called through the C wrappers of plugin.c
// (which turn handles into void pointers and back).

//export goChanCreate
func goChanCreate(capacity C.uint64_t, size, producers, consumers C.uint32_t, errBuf *C.char, errLen C.size_t) C.uintptr_t {
	if capacity == 0 {
		return fail(errBuf, errLen, "go-chan needs a capacity of at least 1 (go-chan-rendezvous is the unbuffered channel)")
	}
	return create(uint64(capacity), uint32(size), errBuf, errLen)
}

//export goRendezvousCreate
func goRendezvousCreate(capacity C.uint64_t, size, producers, consumers C.uint32_t, errBuf *C.char, errLen C.size_t) C.uintptr_t {
	if capacity != 0 {
		return fail(errBuf, errLen, "an unbuffered channel holds nothing: capacity must be 0, not %d (go-chan is the buffered one)", capacity)
	}
	return create(0, uint32(size), errBuf, errLen)
}

//export goTryPush
func goTryPush(h C.uintptr_t, msg unsafe.Pointer) C.int { return cbool(lookup(h).tryPush(msg)) }

//export goTryPushBatch
func goTryPushBatch(h C.uintptr_t, msgs unsafe.Pointer, n C.size_t) C.size_t {
	return C.size_t(lookup(h).tryPushBatch(msgs, count(n)))
}

//export goTryPop
func goTryPop(h C.uintptr_t, out unsafe.Pointer) C.int { return cbool(lookup(h).tryPop(out)) }

//export goDrain
func goDrain(h C.uintptr_t, out unsafe.Pointer, max C.size_t) C.size_t {
	return C.size_t(lookup(h).drain(out, count(max)))
}

//export goPush
func goPush(h C.uintptr_t, msg unsafe.Pointer) C.int { return cbool(lookup(h).push(msg)) }

//export goPop
func goPop(h C.uintptr_t, out unsafe.Pointer) C.int { return cbool(lookup(h).pop(out)) }

//export goClose
func goClose(h C.uintptr_t) { lookup(h).close() }

// goDestroy forgets the channel; the garbage collector frees it and any block left in it.
//
//export goDestroy
func goDestroy(h C.uintptr_t) { unregister(h) }

func cbool(b bool) C.int {
	if b {
		return 1
	}
	return 0
}

// count bounds a batch length to what a slice can hold (handoff's batches are far smaller).
func count(n C.size_t) int { return int(min(uint64(n), math.MaxInt32)) }

func main() {}
