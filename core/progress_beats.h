// A count that only grows while work gets done: bytes read from the evidence and rows written. A run's parent
// process watches it, through memory it shares with the worker process of a file system, to tell a worker that is
// stuck (in a libtsk read that never returns, say) from one that is slow: plugin/run.cpp, --stall-timeout.
#pragma once

#include <atomic>
#include <cstdint>

namespace roo {

// Set in a worker process before its threads start; null elsewhere, where counting costs one test.
inline std::atomic<uint64_t>* g_progress_beats = nullptr;

inline void count_progress(uint64_t n) {
  if (std::atomic<uint64_t>* beats = g_progress_beats) beats->fetch_add(n, std::memory_order_relaxed);
}

}  // namespace roo
