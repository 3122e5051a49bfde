// join_worker_outputs and scan_with_workers (plugin/scan_workers.h) on real files: rows come out in unit order
// whoever wrote them.
#include "plugin/scan_workers.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "core/folder_evidence.h"

namespace roo {
namespace {

namespace fs = std::filesystem;

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void write(const fs::path& p, const std::string& text) { std::ofstream(p, std::ios::binary) << text; }

struct JoinDir {
  inline static int made = 0;  // several at once in one test
  fs::path dir = fs::temp_directory_path() / ("roo-join-" + std::to_string(::getpid()) + "-" + std::to_string(made++));
  fs::path rows = dir / "rows.jsonl", body = dir / "roo.body";
  JoinDir() {
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  ~JoinDir() { fs::remove_all(dir); }
  // One worker's files: its rows, body lines and units file, as scan_workers.cpp writes them.
  void worker(int k, const std::string& rows_text, const std::string& body_text, const std::string& units) {
    const WorkerFiles wf = worker_files(rows, body, k);
    write(wf.rows, rows_text);
    write(wf.body, body_text);
    write(wf.units, units);
  }
};

// --threads 2, and worker 1 found every task taken (it started late): worker 0 alone wrote every unit, but in the
// order it took them (a root's tasks largest first), not in unit order. The join must still put unit 1 before unit 2
// (the output once depended on the timing of the workers: e2e.threads_same_output failed now and then).
TEST(JoinWorkerOutputs, OneWriterWhoseUnitsAreOutOfOrderIsPutInOrder) {
  JoinDir d;
  d.worker(0, "unit2\nunit1\n", "b2\nb1\n", "open 2 0 0\nclose 2 6 3\nopen 1 6 3\nclose 1 12 6\n");
  d.worker(1, "", "", "");
  ASSERT_TRUE(join_worker_outputs(d.rows, d.body, 2, false));
  EXPECT_EQ(read(d.rows), "unit1\nunit2\n");
  EXPECT_EQ(read(d.body), "b1\nb2\n");
  EXPECT_FALSE(fs::exists(worker_files(d.rows, d.body, 0).rows));  // the workers' files are gone
}

TEST(JoinWorkerOutputs, OneWriterInUnitOrderIsKeptAsItIs) {
  JoinDir d;
  d.worker(0, "unit0\nunit1\n", "b0\nb1\n", "open 0 0 0\nclose 0 6 3\nopen 1 6 3\nclose 1 12 6\n");
  d.worker(1, "", "", "");
  ASSERT_TRUE(join_worker_outputs(d.rows, d.body, 2, false));
  EXPECT_EQ(read(d.rows), "unit0\nunit1\n");
  EXPECT_EQ(read(d.body), "b0\nb1\n");
}

TEST(JoinWorkerOutputs, TwoWritersAreInterleavedByUnit) {
  JoinDir d;
  d.worker(0, "unit0\nunit2\n", "b0\nb2\n", "open 0 0 0\nclose 0 6 3\nopen 2 6 3\nclose 2 12 6\n");
  d.worker(1, "unit1\n", "b1\n", "open 1 0 0\nclose 1 6 3\n");
  ASSERT_TRUE(join_worker_outputs(d.rows, d.body, 2, false));
  EXPECT_EQ(read(d.rows), "unit0\nunit1\nunit2\n");
  EXPECT_EQ(read(d.body), "b0\nb1\nb2\n");
}

// scan_with_workers driven by a scan that plays discovery on one root of `tasks` task directories
// (plugin/task_queue.h's units): each task item gets one row naming it, and worker 0 writes a row before the tasks
// and one after them.
struct PlayedRoot {
  int tasks = 6;
  std::map<int, uint64_t> bytes;  // of the tasks that have any (the others have none)
  // Called in the unit of task i, by the worker that runs it, before its row.
  std::function<void(int task, const ScanWorkersSetup& setup)> in_task;
};

// One played row, with its source ended.
void played_row(FileSystemView& view, RowSink& out, const TaskIdentity& identity, const std::string& text) {
  SourceRef source{&view.volume(), view.root()};
  Row r;
  r.kind = "test";
  r.time_ms = 1700000000000;
  r.identity = &identity;
  r.text = text;
  r.source = &source;
  out.emit(r);
  out.end_source(std::string(64, 'a'));
}

// The played root's task items: item i writes the row "task i".
class PlayedItems : public TaskItems {
 public:
  PlayedItems(const PlayedRoot& root, const ScanWorkersSetup& setup, const TaskIdentity& identity)
      : root_(root), setup_(setup), identity_(identity) {}
  size_t size() const override { return static_cast<size_t>(root_.tasks); }
  uint64_t bytes(size_t i) const override {
    auto it = root_.bytes.find(static_cast<int>(i));
    return it == root_.bytes.end() ? 0 : it->second;
  }
  void run(size_t i, FileSystemView& view, RowSink& out, ScanReport&) const override {
    if (root_.in_task) root_.in_task(static_cast<int>(i), setup_);
    played_row(view, out, identity_, "task " + std::to_string(i));
  }

 private:
  const PlayedRoot& root_;
  const ScanWorkersSetup& setup_;
  const TaskIdentity& identity_;
};

std::string expected_texts(int tasks) {
  std::string texts = "before\n";
  for (int i = 0; i < tasks; ++i) texts += "task " + std::to_string(i) + "\n";
  return texts + "after\n";
}

// The "text" of every row of a rows file, one a line.
std::string row_texts(const fs::path& rows) {
  std::string texts;
  std::istringstream in(read(rows));
  for (std::string line; std::getline(in, line);) {
    const size_t at = line.find("\"text\":\"");
    texts += at == std::string::npos ? "?" : line.substr(at + 8, line.find('"', at + 8) - at - 8);
    texts += "\n";
  }
  return texts;
}

// The folder the played rows' provenance names (only its root is looked at, never written): the same for every
// scan, so their bytes can be compared.
fs::path played_evidence() { return fs::path(__FILE__).parent_path(); }

struct PlayedScan {
  JoinDir dir;
  ScanWorkersSetup setup;
  bool joined = false;
  TaskIdentity identity{"vscode", std::nullopt, std::nullopt, std::nullopt, std::nullopt, std::nullopt};

  PlayedRoot root;

  PlayedScan(int workers, PlayedRoot played) : root(std::move(played)) {
    setup.workers = workers;
    setup.rows = dir.rows;
    setup.body = dir.body;
    setup.open_view = [](std::string*) { return std::make_unique<FolderFileSystem>(played_evidence().string()); };
    setup.scan = [this](FileSystemView& view, RowSink& out, ScanReport& report, const ScanOptions& options) {
      played_row(view, out, identity, "before");
      auto items = std::make_shared<PlayedItems>(root, setup, identity);
      if (options.runner)  // several workers: the items are run by the runner's workers
        options.runner->run(items);
      else  // one worker (no runner): every task here, in name order
        for (size_t i = 0; i < items->size(); ++i) items->run(i, view, out, report);
      played_row(view, out, identity, "after");
    };
    setup.workers_stopped = [this](bool all_opened, std::function<bool()> join) {
      EXPECT_TRUE(all_opened);
      joined = join();
    };
  }
};

// The rows are joined while the workers run: the last task's worker finds every earlier unit's rows in the joined
// file before it writes its own (it waits up to 30 s; a join at the end only would never get there).
TEST(ScanWithWorkers, RowsAreJoinedWhileTheWorkersRun) {
  bool seen_before_the_end = false;
  PlayedRoot root;
  root.in_task = [&](int task, const ScanWorkersSetup& setup) {
    if (task != root.tasks - 1) return;
    std::string want = "before\n";
    for (int i = 0; i < task; ++i) want += "task " + std::to_string(i) + "\n";
    for (int tries = 0; tries < 3000 && !seen_before_the_end; ++tries) {
      seen_before_the_end = fs::exists(setup.rows) && row_texts(setup.rows) == want;
      if (!seen_before_the_end) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  };
  PlayedScan scan(2, root);
  const ScanWorkersResult result = scan_with_workers(scan.setup);
  ASSERT_TRUE(result.opened);
  EXPECT_TRUE(seen_before_the_end);
  EXPECT_TRUE(scan.joined);
  EXPECT_EQ(row_texts(scan.dir.rows), expected_texts(root.tasks));
  EXPECT_EQ(result.counts.body_lines, root.tasks + 2);
  for (int k = 0; k < 2; ++k) {  // the workers' files are gone once the join is complete
    EXPECT_FALSE(fs::exists(worker_files(scan.dir.rows, scan.dir.body, k).rows));
    EXPECT_FALSE(fs::exists(worker_files(scan.dir.rows, scan.dir.body, k).units));
  }
}

// Tasks 7 and 30 are big (plugin/task_queue.h): started first, their units close long before the units in front of
// them, and wait to be joined in their place. The others have sizes out of name order (1 to 10 bytes), and are
// still taken in name order.
TEST(ScanWithWorkers, AnyNumberOfWorkersGivesOneThreadsRowsAndBodyLines) {
  PlayedRoot root{40, {{7, 1000}, {30, 2000}}, nullptr};
  for (int i = 0; i < 40; ++i)
    if (i != 7 && i != 30) root.bytes[i] = 1 + (i * 7) % 10;
  PlayedScan one(1, root);
  scan_with_workers(one.setup);
  ASSERT_TRUE(one.joined);
  EXPECT_EQ(row_texts(one.dir.rows), expected_texts(40));
  const std::string rows = read(one.dir.rows), body = read(one.dir.body);
  for (int workers : {2, 3, 5}) {
    std::map<std::thread::id, std::vector<int>> done;  // each worker's tasks, in the order it took them
    std::mutex mu;
    root.in_task = [&](int task, const ScanWorkersSetup&) {
      std::lock_guard<std::mutex> lock(mu);
      done[std::this_thread::get_id()].push_back(task);
    };
    PlayedScan many(workers, root);
    scan_with_workers(many.setup);
    ASSERT_TRUE(many.joined);
    EXPECT_TRUE(read(many.dir.rows) == rows) << workers << " workers";
    EXPECT_TRUE(read(many.dir.body) == body) << workers << " workers";
    // Each worker took a big task before any other, and the others in name order.
    size_t tasks_done = 0;
    for (const auto& [worker, tasks] : done) {
      tasks_done += tasks.size();
      size_t first_small = 0;
      while (first_small < tasks.size() && (tasks[first_small] == 7 || tasks[first_small] == 30)) ++first_small;
      for (size_t i = first_small; i < tasks.size(); ++i) {
        EXPECT_TRUE(tasks[i] != 7 && tasks[i] != 30) << workers << " workers: a big task after a small one";
        if (i > first_small) {
          EXPECT_LT(tasks[i - 1], tasks[i]) << workers << " workers";
        }
      }
    }
    EXPECT_EQ(tasks_done, 40u);
  }
}

// A worker that fails inside a unit never closes it: the join cannot be completed as the workers went, and the
// end-of-run join (join_worker_outputs) writes the joined files from the workers' files instead, every finished
// unit in order.
TEST(ScanWithWorkers, AUnitLeftOpenFallsBackToTheJoinAtTheEnd) {
  PlayedRoot root;
  root.tasks = 8;
  root.in_task = [](int task, const ScanWorkersSetup&) {
    if (task == 3) throw std::runtime_error("worker failed in task 3");
  };
  PlayedScan scan(2, root);
  const ScanWorkersResult result = scan_with_workers(scan.setup);
  EXPECT_FALSE(result.write_ok);
  EXPECT_TRUE(scan.joined);
  // Every other task was done by the worker left, in unit order; "after" is worker 0's, there if it was not the one
  // that failed. Task 3 wrote no row.
  std::string want = "before\n";
  for (int i = 0; i < 8; ++i)
    if (i != 3) want += "task " + std::to_string(i) + "\n";
  const std::string texts = row_texts(scan.dir.rows);
  EXPECT_TRUE(texts == want || texts == want + "after\n") << texts;
  EXPECT_FALSE(fs::exists(worker_files(scan.dir.rows, scan.dir.body, 0).units));  // the end-of-run join ran
}

}  // namespace
}  // namespace roo
