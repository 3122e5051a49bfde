// Runs a sink on a second thread: the parsing thread hands rows over and goes on reading, framing and parsing while
// this thread serialises and writes them. On a 2-core machine that overlaps the two halves of the work on a large
// task file. Order is kept (one queue, one consumer), and end_source() waits until every row handed over so far has
// been written, so the pointers a row holds (task identity, source) stay valid while it is in the queue.
#pragma once

#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>
#include <variant>
#include <vector>

#include "core/row.h"

namespace roo {

class RowPipeline : public RowSink {
 public:
  explicit RowPipeline(RowSink& inner, size_t max_queued_rows = 1024);
  ~RowPipeline() override;
  RowPipeline(const RowPipeline&) = delete;
  RowPipeline& operator=(const RowPipeline&) = delete;

  void emit(const Row& row) override { take(Row(row)); }
  void take(Row&& row) override;
  void end_source(const std::string& sha256_hex) override;

 private:
  struct EndSource {
    std::string sha256_hex;
  };
  using Item = std::variant<Row, EndSource>;
  void run();
  void hand_over(bool end_of_source);  // moves the producer's local batch into the queue

  static constexpr size_t kBatch = 64;  // rows the producer gathers before taking the lock
  std::vector<Item> local_;            // producer side only, no lock

  RowSink& inner_;
  const size_t max_queued_;
  std::mutex mutex_;
  // Two sides, two condition variables, and a wake-up only when the other side sleeps: in a VM every futex wake is a
  // costly exit, and waking per row took a fifth of the run time.
  std::condition_variable items_;     // the consumer waits for items
  std::condition_variable progress_;  // the producer waits for room, or for its end_source to be written
  bool consumer_sleeping_ = false, producer_sleeping_ = false;
  std::deque<Item> queue_;
  uint64_t handed_ = 0, done_ = 0;  // items handed over / written
  bool stopping_ = false;
  std::thread consumer_;
};

}  // namespace roo
