// --threads: one file system's tasks shared between worker threads, with rows that come out exactly as one thread
// writes them.
//
// Every worker walks the same catalog in the same order (discovery is deterministic), so each sees the same sequence
// of work units, numbered alike: a task directory is a unit, and so is each stretch of other work between a root's
// task directories. A task unit is done by the worker that claims it first (the workers try a root's big tasks first,
// so they start early, and the others in name order, so units close roughly in unit order and their rows can be
// joined while the workers run: plugin/scan_workers.cpp); every other unit belongs to worker 0.
// A worker parses only the task units it claimed; the rows of other non-task units it passes through are dropped
// (plugin/scan_workers.cpp puts a gate in front of its sinks), and the run joins the workers' outputs back in unit
// order, so rows come out as one thread writes them, whoever did the work.
//
// One thing crosses units: what a home's tasks tell its other stores (HomeTasks: user words for the CLI history, the
// workspaces for .roo/mcp.json). Worker 0 reads those stores, so at the end of each home's roots it waits for the
// other workers' HomeTasks of that home and merges them (share_home_tasks).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <vector>

#include "core/discovery.h"
#include "core/store_assembly.h"

namespace roo {

class WorkSplit : public TaskShare {
 public:
  // What the workers of one file system share. Made once, before the workers start.
  class Shared {
   public:
    explicit Shared(int workers)
        : workers_(workers), passed_(static_cast<size_t>(workers), 0), stopped_(static_cast<size_t>(workers), false) {}
    int workers() const { return workers_; }

   private:
    friend class WorkSplit;
    const int workers_;
    std::mutex mu_;
    std::condition_variable cv_;
    std::map<int64_t, std::vector<HomeTasks>> deposits_;  // by sync point, from workers > 0
    std::vector<int64_t> passed_;                         // by worker: sync points it has handed its HomeTasks in at
    std::vector<bool> stopped_;                           // by worker: stopped; nobody waits for it any more
    std::set<int64_t> claimed_;                           // task units a worker has taken
  };

  WorkSplit(std::shared_ptr<Shared> shared, int worker)
      : shared_(std::move(shared)), worker_(worker), unit_is_mine_(worker == 0) {}
  ~WorkSplit() { abandon(); }
  WorkSplit(const WorkSplit&) = delete;
  WorkSplit& operator=(const WorkSplit&) = delete;

  int worker() const { return worker_; }
  int workers() const { return shared_->workers(); }

  // Numbers a root's task directories as units (tasks[i] is unit first + i, the returned first) and puts `order` in
  // the order to try them: first the big ones, largest first (by the bytes of their files; ties by name), then the
  // others in name order. A task is big when it holds more than 1/(8 x workers) of the root's bytes: a small one left
  // to the end then keeps the other workers waiting for at most that.
  int64_t reserve_task_units(const std::vector<TaskDir>& tasks, std::vector<size_t>& order) override;
  // Enters task unit `unit`; true when this worker claimed it (no other worker had).
  bool claim_task_unit(int64_t unit) override;
  // Enters the next non-task unit (worker 0's).
  void enter_shared_unit() override;
  bool in_own_unit() const { return unit_is_mine_; }
  int64_t unit() const { return unit_; }
  const int64_t* unit_ptr() const override { return &unit_; }  // for UserWordsCollector
  std::function<void(int64_t unit, bool mine)> on_unit;  // hears of every unit entered

  // The HomeTasks of one home (or ephemeral dir), after its roots: workers > 0 hand theirs over and go on; worker 0
  // waits for them and merges them into its own. Every worker calls it at the same points. True for worker 0.
  bool share_home_tasks(HomeTasks& tasks) override;
  bool does_shared_work() const override { return worker_ == 0; }
  // This worker stops (finished, or failed): worker 0 no longer waits for it at later sync points.
  void abandon();

 private:
  void enter(int64_t unit, bool mine);

  std::shared_ptr<Shared> shared_;
  const int worker_;
  int64_t unit_ = 0;          // the unit being worked through (unit 0: before the first task directory)
  bool unit_is_mine_;
  int64_t last_numbered_ = 0;  // the highest unit number given out so far
  int64_t sync_point_ = 0;
  bool abandoned_ = false;
};

// Merges what another worker's tasks of the same home told (user words, workspaces; a workspace keeps the surface of
// the task that came first in unit order).
void merge_home_tasks(HomeTasks& into, HomeTasks&& from);

}  // namespace roo
