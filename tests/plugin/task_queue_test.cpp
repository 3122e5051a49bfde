// --threads (plugin/task_queue.h): how a file system's task items are shared between workers, and how what a home's
// tasks tell its stores is put back together.
#include "plugin/task_queue.h"

#include <gtest/gtest.h>

#include <chrono>
#include <mutex>
#include <set>
#include <thread>

namespace roo {
namespace {

// Task items that only have sizes (they are never run here).
class SizedItems : public TaskItems {
 public:
  explicit SizedItems(std::vector<uint64_t> bytes) : bytes_(std::move(bytes)) {}
  size_t size() const override { return bytes_.size(); }
  uint64_t bytes(size_t i) const override { return bytes_[i]; }
  void run(size_t, FileSystemView&, RowSink&, ScanReport&) const override {}

 private:
  std::vector<uint64_t> bytes_;
};

std::shared_ptr<const TaskItems> items_of(std::vector<uint64_t> bytes) {
  return std::make_shared<SizedItems>(std::move(bytes));
}

TEST(TaskQueue, TasksAreNumberedInNameOrderAndTriedBigOnesFirst) {
  TaskQueue queue(2);
  // 2 workers: big is more than 1/16 of the root's bytes. a, c, d and f are big, b, e and g are not.
  const std::vector<uint64_t> bytes = {100, 1, 500, 500, 20, 300, 10};  // a … g
  EXPECT_EQ(start_order(bytes, 2), (std::vector<size_t>{2, 3, 5, 0, 1, 4, 6}));  // c, d (a tie keeps name
                                                                                // order), f, a; then b, e, g
  queue.add(items_of(bytes));
  std::vector<size_t> taken;
  for (int i = 0; i < 7; ++i) {
    std::optional<TaskQueue::Item> item = queue.take(false);
    ASSERT_TRUE(item);
    EXPECT_EQ(item->unit, 1 + static_cast<int64_t>(item->index));  // unit 0 is the work before the first task
    taken.push_back(item->index);
  }
  EXPECT_EQ(taken, (std::vector<size_t>{2, 3, 5, 0, 1, 4, 6}));
  EXPECT_FALSE(queue.take(false));
  queue.add(items_of({5}));
  EXPECT_EQ(queue.take(false)->unit, 8);
}

TEST(TaskQueue, WithNoBigTaskEveryTaskIsTriedInNameOrder) {
  std::vector<uint64_t> bytes;  // 4 workers: big is more than 1/32 of the bytes
  for (int i = 0; i < 40; ++i) bytes.push_back(10 + (i * 7) % 3);
  std::vector<size_t> names(bytes.size());
  for (size_t i = 0; i < names.size(); ++i) names[i] = i;
  EXPECT_EQ(start_order(bytes, 4), names);
}

TEST(TaskQueue, EachTaskGoesToOneWorker) {
  TaskQueue queue(3);
  std::vector<uint64_t> bytes(200, 1);
  queue.add(items_of(bytes));
  EXPECT_EQ(queue.next_unit(), 201);  // after the tasks: worker 0's
  queue.close();
  std::mutex mu;
  std::multiset<int64_t> units;
  auto worker = [&] {
    while (std::optional<TaskQueue::Item> item = queue.take(true)) {  // stops once the queue is closed and empty
      {
        std::lock_guard<std::mutex> lock(mu);
        units.insert(item->unit);
      }
      queue.done(*item, HomeTasks{});
    }
  };
  std::thread w1(worker), w2(worker);
  worker();
  w1.join();
  w2.join();
  ASSERT_EQ(units.size(), 200u);
  int64_t want = 1;
  for (int64_t unit : units) EXPECT_EQ(unit, want++);  // each once
}

TEST(TaskQueue, BeforeAnyTaskTheWorkIsWorkerZeros) {
  TaskQueue queue(2);
  EXPECT_FALSE(queue.take(false));
  EXPECT_EQ(queue.next_unit(), 1);  // unit 0 was worker 0's
}

TEST(TaskQueue, WorkerZeroWaitsForTheOthersHomeTasksAndMergesThem) {
  TaskQueue queue(2);
  queue.add(items_of({1}));
  std::optional<TaskQueue::Item> item = queue.take(false);
  ASSERT_TRUE(item);
  HomeTasks merged;
  merged.user_words.add("from worker 0");
  std::thread other([&] {
    HomeTasks mine;
    mine.user_words.add("from worker 1");
    mine.project_paths["/p"] = "cursor";
    mine.project_units["/p"] = 3;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));  // worker 0 gets there first and has to wait
    queue.done(*item, std::move(mine));
  });
  merged.project_paths["/p"] = "vscode";
  merged.project_units["/p"] = 7;
  queue.gather(merged);
  other.join();
  EXPECT_TRUE(merged.user_words.contains("from worker 0"));
  EXPECT_TRUE(merged.user_words.contains("from worker 1"));
  EXPECT_EQ(merged.project_paths["/p"], "cursor");  // worker 1's task came first (unit 3 < 7), as one thread saw it
}

TEST(TaskQueue, AStoppedWorkerIsNotWaitedFor) {
  TaskQueue queue(2);
  queue.add(items_of({1}));
  std::optional<TaskQueue::Item> item = queue.take(false);
  ASSERT_TRUE(item);
  queue.dropped(*item);  // its worker failed running it
  HomeTasks tasks;
  queue.gather(tasks);  // returns instead of waiting forever
  SUCCEED();
}

TEST(TaskQueue, MergeKeepsTheEarlierWorkspaceSurface) {
  HomeTasks into, from;
  into.project_paths["/a"] = "vscode";
  into.project_units["/a"] = 2;
  from.project_paths["/a"] = "cursor";
  from.project_units["/a"] = 5;
  from.project_paths["/b"] = "cli";
  from.project_units["/b"] = 9;
  from.task_ids_by_root["/root"] = {"t1"};
  merge_home_tasks(into, std::move(from));
  EXPECT_EQ(into.project_paths["/a"], "vscode");
  EXPECT_EQ(into.project_paths["/b"], "cli");
  EXPECT_EQ(into.task_ids_by_root["/root"], std::set<std::string>{"t1"});
}

}  // namespace
}  // namespace roo
