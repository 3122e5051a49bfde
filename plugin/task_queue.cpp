#include "plugin/task_queue.h"

#include <algorithm>
#include <numeric>

namespace roo {

std::vector<size_t> start_order(const std::vector<uint64_t>& bytes, int workers) {
  const uint64_t total = std::accumulate(bytes.begin(), bytes.end(), uint64_t{0});
  const uint64_t big = total / (8 * static_cast<uint64_t>(std::max(1, workers)));
  std::vector<size_t> order(bytes.size());
  std::iota(order.begin(), order.end(), 0);
  // The big ones first, largest first; then the others in name order (stable_sort keeps it among equals).
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const bool a_big = bytes[a] > big, b_big = bytes[b] > big;
    if (a_big != b_big) return a_big;
    return a_big && bytes[a] > bytes[b];
  });
  return order;
}

void TaskQueue::add(std::shared_ptr<const TaskItems> items) {
  std::vector<uint64_t> bytes(items->size());
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = items->bytes(i);
  const std::vector<size_t> order = start_order(bytes, workers_);
  {
    std::lock_guard<std::mutex> lock(mu_);
    const int64_t first = last_unit_ + 1;
    last_unit_ += static_cast<int64_t>(bytes.size());
    for (size_t i : order) queued_.push_back(Item{first + static_cast<int64_t>(i), items, i});
  }
  cv_.notify_all();
}

int64_t TaskQueue::next_unit() {
  std::lock_guard<std::mutex> lock(mu_);
  return ++last_unit_;
}

std::optional<TaskQueue::Item> TaskQueue::take(bool wait) {
  std::unique_lock<std::mutex> lock(mu_);
  if (wait) cv_.wait(lock, [&] { return !queued_.empty() || closed_; });
  if (queued_.empty()) return std::nullopt;
  Item item = std::move(queued_.front());
  queued_.pop_front();
  ++running_;
  return item;
}

void TaskQueue::done(const Item& item, HomeTasks told) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    told_[item.unit] = std::move(told);
    --running_;
  }
  cv_.notify_all();
}

void TaskQueue::dropped(const Item&) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    --running_;
  }
  cv_.notify_all();
}

void TaskQueue::gather(HomeTasks& into) {
  std::map<int64_t, HomeTasks> told;
  {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return queued_.empty() && running_ == 0; });
    told.swap(told_);
  }
  for (auto& [unit, t] : told) merge_home_tasks(into, std::move(t));
}

void TaskQueue::close() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    closed_ = true;
  }
  cv_.notify_all();
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
