// The xnnpack backend's thread pool. XNNPACK (and our own kernels) call the
// pthreadpool C API; Debian's libpthreadpool (2021) makes every parallel call
// wait until each worker has woken up and checked in, and its idle workers
// spin for ~10^6 pauses. On a shared 2-core host, a worker that the OS or
// the hypervisor has descheduled then stalls every one of the ~60 parallel
// calls of an inference (inference/README.md, bench/models/RESULTS.md).
//
// WorkPool differs where that matters: items are claimed from one atomic
// counter (the caller claims too), so a call returns as soon as all items are
// done, whether or not a worker ever joined; workers spin briefly
// (SLUICE_POOL_SPIN_US, default 50 us) and then sleep on a futex.
//
// It reaches XNNPACK by implementing the pthreadpool C API itself
// (pthreadpool_*, exported from this object, so the dynamic linker binds
// libXNNPACK.so's calls to it ahead of libpthreadpool.so). Handles that are
// not WorkPools are forwarded to libpthreadpool, so nothing breaks when the
// binding goes the other way: CreateXnnpackThreadPool() checks, once, which
// implementation XNNPACK reaches and hands out a WorkPool only if it is ours.
#ifndef SLUICE_INFERENCE_XNNPACK_WORK_POOL_H_
#define SLUICE_INFERENCE_XNNPACK_WORK_POOL_H_

#include <pthreadpool.h>

#include <cstddef>
#include <cstdint>

namespace sluice::inference::xnn {

// Runs `fn(context, begin, end)` over disjoint ranges covering [0, items).
using RangeFn = void (*)(void* context, size_t begin, size_t end);

class WorkPool;

// `threads` >= 2 threads in all (the caller and threads - 1 workers).
WorkPool* NewWorkPool(size_t threads);
void DeleteWorkPool(WorkPool* pool);
bool IsWorkPool(const void* handle);
size_t WorkPoolThreads(const WorkPool* pool);
// Returns when every item is done. `flags`: PTHREADPOOL_FLAG_DISABLE_DENORMALS
// is honoured; calls are serialised per pool (as pthreadpool's are).
void WorkPoolRun(WorkPool* pool, RangeFn fn, void* context, size_t items, uint32_t flags);

// A pool for XNNPACK and our kernels: a WorkPool when XNNPACK's pthreadpool
// calls reach this file's implementation (or SLUICE_POOL=pthreadpool asks for
// libpthreadpool's), else libpthreadpool's own pool. nullptr if creation fails.
// Destroy with pthreadpool_destroy().
pthreadpool_t CreateXnnpackThreadPool(size_t threads);
// Whether XNNPACK's calls reach this file's pthreadpool_* (checked once).
bool XnnpackUsesWorkPool();
// Parallel calls served by WorkPools since start (for tests).
uint64_t WorkPoolCallCount();

}  // namespace sluice::inference::xnn

#endif  // SLUICE_INFERENCE_XNNPACK_WORK_POOL_H_
