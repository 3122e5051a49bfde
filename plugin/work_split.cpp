#include "plugin/work_split.h"

#include <algorithm>
#include <numeric>

namespace roo {

int64_t WorkSplit::reserve_task_units(const std::vector<TaskDir>& tasks, std::vector<size_t>& order) {
  const int64_t first = last_numbered_ + 1;
  last_numbered_ += static_cast<int64_t>(tasks.size());
  std::vector<uint64_t> bytes(tasks.size());
  for (size_t i = 0; i < tasks.size(); ++i) bytes[i] = task_dir_bytes(tasks[i]);
  const uint64_t total = std::accumulate(bytes.begin(), bytes.end(), uint64_t{0});
  const uint64_t big = total / (8 * static_cast<uint64_t>(std::max(1, workers())));
  order.resize(tasks.size());
  std::iota(order.begin(), order.end(), 0);
  // The big tasks first, largest first; then the others in name order (stable_sort keeps it among equals).
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const bool a_big = bytes[a] > big, b_big = bytes[b] > big;
    if (a_big != b_big) return a_big;
    return a_big && bytes[a] > bytes[b];
  });
  return first;
}

bool WorkSplit::claim_task_unit(int64_t unit) {
  bool mine;
  {
    std::lock_guard<std::mutex> lock(shared_->mu_);
    mine = shared_->claimed_.insert(unit).second;
  }
  enter(unit, mine);
  return mine;
}

void WorkSplit::enter_shared_unit() { enter(++last_numbered_, worker_ == 0); }

void WorkSplit::enter(int64_t unit, bool mine) {
  unit_ = unit;
  unit_is_mine_ = mine;
  if (on_unit) on_unit(unit, mine);
}

bool WorkSplit::share_home_tasks(HomeTasks& tasks) {
  const int64_t point = sync_point_++;
  Shared& s = *shared_;
  std::unique_lock<std::mutex> lock(s.mu_);
  if (worker_ != 0) {
    s.deposits_[point].push_back(std::move(tasks));
    s.passed_[static_cast<size_t>(worker_)] = point + 1;
    s.cv_.notify_all();
    return false;
  }
  auto everyone_in = [&] {
    for (int w = 1; w < s.workers_; ++w)
      if (s.passed_[static_cast<size_t>(w)] <= point && !s.stopped_[static_cast<size_t>(w)]) return false;
    return true;
  };
  s.cv_.wait(lock, everyone_in);
  auto it = s.deposits_.find(point);
  if (it == s.deposits_.end()) return true;
  for (HomeTasks& other : it->second) merge_home_tasks(tasks, std::move(other));
  s.deposits_.erase(it);
  return true;
}

void WorkSplit::abandon() {
  if (abandoned_) return;
  abandoned_ = true;
  std::lock_guard<std::mutex> lock(shared_->mu_);
  shared_->stopped_[static_cast<size_t>(worker_)] = true;
  shared_->cv_.notify_all();
}

void merge_home_tasks(HomeTasks& into, HomeTasks&& from) {
  for (auto& [root, ids] : from.task_ids_by_root) into.task_ids_by_root[root].insert(ids.begin(), ids.end());
  into.user_words.merge(from.user_words);
  for (const auto& [path, surface] : from.project_paths) {
    const int64_t unit = from.project_units[path];
    auto mine = into.project_units.find(path);
    if (mine == into.project_units.end() || unit < mine->second) {
      into.project_paths[path] = surface;
      into.project_units[path] = unit;
    }
  }
}

}  // namespace roo
