// --threads (plugin/work_split.h): how a file system's tasks are shared between workers, and how what a home's tasks
// tell its stores is put back together.
#include "plugin/work_split.h"

#include <gtest/gtest.h>

#include <thread>

namespace roo {
namespace {

TaskDir task_of(const std::string& name, uint64_t ui_bytes) {
  TaskDir td;
  td.dir.name = name;
  FileMeta ui;
  ui.name = "ui_messages.json";
  ui.size = ui_bytes;
  td.files[TaskFileKind::ui_messages] = ui;
  return td;
}

TEST(WorkSplit, TasksAreNumberedInNameOrderAndTriedBigOnesFirst) {
  auto shared = std::make_shared<WorkSplit::Shared>(2);
  WorkSplit split(shared, 1);
  std::vector<size_t> order;
  // 2 workers: big is more than 1/16 of the root's bytes. a, c, d and f are big, b, e and g are not.
  const std::vector<TaskDir> tasks = {task_of("a", 100), task_of("b", 1),   task_of("c", 500), task_of("d", 500),
                                      task_of("e", 20),  task_of("f", 300), task_of("g", 10)};
  EXPECT_EQ(split.reserve_task_units(tasks, order), 1);         // unit 0 is the work before the first task
  EXPECT_EQ(order, (std::vector<size_t>{2, 3, 5, 0, 1, 4, 6}));  // c, d (a tie keeps name order), f, a; then b, e, g
  EXPECT_EQ(split.reserve_task_units({task_of("h", 5)}, order), 8);
}

TEST(WorkSplit, WithNoBigTaskEveryTaskIsTriedInNameOrder) {
  auto shared = std::make_shared<WorkSplit::Shared>(4);  // big: more than 1/32 of the bytes
  WorkSplit split(shared, 0);
  std::vector<TaskDir> tasks;
  for (int i = 0; i < 40; ++i) tasks.push_back(task_of("t" + std::to_string(100 + i), 10 + (i * 7) % 3));
  std::vector<size_t> order;
  split.reserve_task_units(tasks, order);
  std::vector<size_t> names(tasks.size());
  for (size_t i = 0; i < names.size(); ++i) names[i] = i;
  EXPECT_EQ(order, names);
}

TEST(WorkSplit, EachTaskUnitGoesToTheFirstWorkerToClaimIt) {
  auto shared = std::make_shared<WorkSplit::Shared>(2);
  WorkSplit w0(shared, 0), w1(shared, 1);
  std::vector<size_t> order;
  const std::vector<TaskDir> tasks = {task_of("a", 1), task_of("b", 2)};
  const int64_t first0 = w0.reserve_task_units(tasks, order), first1 = w1.reserve_task_units(tasks, order);
  EXPECT_EQ(first0, first1);  // every worker numbers the units alike
  std::vector<std::pair<int64_t, bool>> heard;
  w1.on_unit = [&](int64_t unit, bool mine) { heard.emplace_back(unit, mine); };
  EXPECT_TRUE(w1.claim_task_unit(first1 + 1));
  EXPECT_FALSE(w0.claim_task_unit(first0 + 1));
  EXPECT_FALSE(w0.in_own_unit());
  EXPECT_TRUE(w0.claim_task_unit(first0));
  EXPECT_FALSE(w1.claim_task_unit(first1));
  EXPECT_EQ(w0.unit(), w1.unit());
  w0.enter_shared_unit();  // after the tasks: worker 0's
  w1.enter_shared_unit();
  EXPECT_TRUE(w0.in_own_unit());
  EXPECT_FALSE(w1.in_own_unit());
  EXPECT_EQ(w0.unit(), first0 + 2);
  EXPECT_EQ(heard, (std::vector<std::pair<int64_t, bool>>{{2, true}, {1, false}, {3, false}}));
}

TEST(WorkSplit, BeforeAnyTaskTheWorkIsWorkerZeros) {
  auto shared = std::make_shared<WorkSplit::Shared>(2);
  WorkSplit w0(shared, 0), w1(shared, 1);
  EXPECT_TRUE(w0.in_own_unit());
  EXPECT_FALSE(w1.in_own_unit());
  EXPECT_EQ(w0.unit(), 0);
}

TEST(WorkSplit, WorkerZeroWaitsForTheOthersHomeTasksAndMergesThem) {
  auto shared = std::make_shared<WorkSplit::Shared>(2);
  HomeTasks merged;
  merged.user_words.add("from worker 0");
  std::thread other([&] {
    WorkSplit w1(shared, 1);
    HomeTasks mine;
    mine.user_words.add("from worker 1");
    mine.project_paths["/p"] = "cursor";
    mine.project_units["/p"] = 3;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));  // worker 0 gets there first and has to wait
    w1.share_home_tasks(mine);
  });
  WorkSplit w0(shared, 0);
  merged.project_paths["/p"] = "vscode";
  merged.project_units["/p"] = 7;
  w0.share_home_tasks(merged);
  other.join();
  EXPECT_TRUE(merged.user_words.contains("from worker 0"));
  EXPECT_TRUE(merged.user_words.contains("from worker 1"));
  EXPECT_EQ(merged.project_paths["/p"], "cursor");  // worker 1's task came first (unit 3 < 7), as one thread saw it
}

TEST(WorkSplit, AStoppedWorkerIsNotWaitedFor) {
  auto shared = std::make_shared<WorkSplit::Shared>(2);
  { WorkSplit w1(shared, 1); }  // gone before the first sync point (its destructor abandons it)
  WorkSplit w0(shared, 0);
  HomeTasks tasks;
  w0.share_home_tasks(tasks);  // returns instead of waiting forever
  SUCCEED();
}

TEST(WorkSplit, MergeKeepsTheEarlierWorkspaceSurface) {
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
