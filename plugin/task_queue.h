// --threads: one file system's task items shared between worker threads, with rows that come out exactly as one
// thread writes them.
//
// Worker 0 alone walks the file system (core/discovery.cpp): it plans, and writes every row that is no task
// directory's (the roots' indexes, the stores, the orphans). Each root's task directories it hands over as task items
// (core/discovery.h TaskItems) to this queue; the other workers take them one at a time and run them with views,
// sinks and reports of their own, and worker 0 runs what is still queued whenever it must wait for the items anyway.
// The queue numbers the plan as work units: a task item is a unit, and so is each stretch of worker 0's rows between
// them. Every worker writes its rows and body lines into files of its own, with a units file saying which byte
// ranges belong to which unit (plugin/scan_workers.cpp); they are copied into the joined files in unit order as the
// units close, so rows come out as one thread writes them, whoever did the work.
//
// One thing crosses units: what a home's tasks tell its other stores (HomeTasks: user words for the CLI history, the
// workspaces for .roo/mcp.json). Each item's rows are collected apart; at the end of each home's roots worker 0
// waits for the home's items and merges what they told in unit order (gather).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "core/discovery.h"
#include "core/store_assembly.h"

namespace roo {

// The order to start a root's items in (by the bytes each reads): first the big ones, largest first (ties by name),
// then the others in name order. An item is big when it holds more than 1/(8 x workers) of the root's bytes: a small
// one left to the end then keeps the other workers waiting for at most that.
std::vector<size_t> start_order(const std::vector<uint64_t>& bytes, int workers);

class TaskQueue {
 public:
  struct Item {
    int64_t unit = 0;
    std::shared_ptr<const TaskItems> items;
    size_t index = 0;  // items->run(index, …)
  };

  explicit TaskQueue(int workers) : workers_(workers) {}
  int workers() const { return workers_; }

  // Worker 0: a root's items, numbered as the next units in name order, queued in start order.
  void add(std::shared_ptr<const TaskItems> items);
  // Worker 0: a new unit for its own rows, after every unit numbered so far (unit 0, before the first item, is its
  // first).
  int64_t next_unit();
  // The next queued item, now running. wait: while the queue is empty and open, waits for one; otherwise returns
  // nothing when none is queued.
  std::optional<Item> take(bool wait);
  // An item has run; told is what its rows told its home.
  void done(const Item& item, HomeTasks told);
  // An item that did not finish (its worker failed): nobody waits for it.
  void dropped(const Item& item);
  // Waits until every item added so far has run (or was dropped), and merges what they told into `into`, in unit
  // order. Only worker 0 calls it, once none is queued (it runs the queued ones itself first).
  void gather(HomeTasks& into);
  // No item is added any more (worker 0 finished or failed): waiting workers stop once the queue is empty.
  void close();

 private:
  const int workers_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Item> queued_;
  int64_t running_ = 0;
  int64_t last_unit_ = 0;
  std::map<int64_t, HomeTasks> told_;  // by unit, of items run since the last gather
  bool closed_ = false;
};

// Merges what other tasks of the same home told (user words, workspaces; a workspace keeps the surface of the task
// that came first in unit order).
void merge_home_tasks(HomeTasks& into, HomeTasks&& from);

}  // namespace roo
