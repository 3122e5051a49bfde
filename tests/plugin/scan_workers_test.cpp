// join_worker_outputs (plugin/scan_workers.h) on real files: rows come out in unit order whoever wrote them.
#include "plugin/scan_workers.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

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
  fs::path dir = fs::temp_directory_path() / ("roo-join-" + std::to_string(::getpid()));
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

}  // namespace
}  // namespace roo
