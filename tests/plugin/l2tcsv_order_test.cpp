// l2t.csv in time order (psort writes l2tcsv sorted by time), on hand-written rows: times out of order,
// ties (kept in input order), a time with more precision than another of the same second, a row without a time.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "plugin/formats/csv.h"
#include "plugin/formats/display_time.h"

namespace roo {
namespace {

namespace fs = std::filesystem;

class L2tCsvOrder : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/roo-l2t-order.XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Feeds the rows (JSON text) through the l2tcsv writer; the lines written (header included). Lines end with LF
  // alone, as plaso writes l2tcsv.
  std::vector<std::string> write(const std::vector<std::string>& rows) {
    std::string error;
    auto zone = DisplayZone::open("UTC", &error);
    EXPECT_TRUE(zone) << error;
    auto writer = make_l2tcsv_writer(dir_ / "l2t.csv", *zone);
    for (const std::string& text : rows) {
      rapidjson::Document row;
      row.Parse(text.c_str());
      EXPECT_TRUE(row.IsObject()) << text;
      writer->row(row, text);
    }
    EXPECT_TRUE(writer->finish(&error)) << error;
    written_ = writer->rows_written();
    left_out_ = writer->rows_left_out();
    std::ifstream in(dir_ / "l2t.csv", std::ios::binary);
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);) {
      EXPECT_TRUE(line.empty() || line.back() != '\r') << line;
      lines.push_back(line);
    }
    return lines;
  }

  fs::path dir_;
  int64_t written_ = 0, left_out_ = 0;
};

std::string row(const std::string& id, const char* time_utc) {
  return R"({"schema":"roo-ingest/row/1","row_id":")" + id + R"(","kind":"ui_event","time_utc":)" +
         (time_utc ? "\"" + std::string(time_utc) + "\"" : std::string("null")) +
         R"(,"time_source":"record","text":")" + id + R"("})";
}

// The date, time and desc cells of a line (desc is "<kind>: <text>", the text here the row's id).
std::string date_time_desc(const std::string& line) {
  std::vector<std::string> cells;
  std::stringstream ss(line);
  for (std::string cell; std::getline(ss, cell, ',');) cells.push_back(cell);
  return cells.at(0) + " " + cells.at(1) + " " + cells.at(10);
}

TEST_F(L2tCsvOrder, LinesAreSortedByTimeStably) {
  const std::vector<std::string> lines = write({
      row("c", "2026-03-02T10:00:00.000Z"), row("a", "2026-03-01T09:00:00.500Z"), row("untimed", nullptr),
      row("d", "2026-03-02T10:00:00.000Z"),  // same instant as c: after it, as in the input
      row("b", "2026-03-01T09:00:00.250Z"),  // same second as a, 250 ms earlier: before it
      row("e", "1969-12-31T23:59:59.000Z"),  // before the epoch: first
  });
  ASSERT_EQ(lines.size(), 6u);
  EXPECT_EQ(lines[0].substr(0, 10), "date,time,");  // the header stays first
  EXPECT_EQ(date_time_desc(lines[1]), "12/31/1969 23:59:59 ui_event: e");
  EXPECT_EQ(date_time_desc(lines[2]), "03/01/2026 09:00:00 ui_event: b");
  EXPECT_EQ(date_time_desc(lines[3]), "03/01/2026 09:00:00 ui_event: a");
  EXPECT_EQ(date_time_desc(lines[4]), "03/02/2026 10:00:00 ui_event: c");
  EXPECT_EQ(date_time_desc(lines[5]), "03/02/2026 10:00:00 ui_event: d");
  EXPECT_EQ(written_, 5);
  EXPECT_EQ(left_out_, 1);
  // Only l2t.csv is left: the spill file is removed.
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(dir_)) files.push_back(e.path().filename().string());
  EXPECT_EQ(files, std::vector<std::string>{"l2t.csv"});
}

// Lines that run past the 1 MiB read batch and rows already in order come out whole and in order.
TEST_F(L2tCsvOrder, ManyRowsInOrderAndReversed) {
  std::vector<std::string> rows;
  for (int i = 0; i < 20000; ++i) {
    char t[40];
    std::snprintf(t, sizeof t, "2026-03-01T%02d:%02d:%02d.000Z", i / 3600 % 24, i / 60 % 60, i % 60);
    rows.push_back(row("r" + std::to_string(i), t));
  }
  std::vector<std::string> reversed(rows.rbegin(), rows.rend());
  const std::vector<std::string> forward = write(rows);
  const std::vector<std::string> backward = write(reversed);
  ASSERT_EQ(forward.size(), 20001u);
  EXPECT_EQ(forward, backward);  // distinct times: the input order does not matter
  EXPECT_EQ(date_time_desc(forward[1]), "03/01/2026 00:00:00 ui_event: r0");
  EXPECT_EQ(date_time_desc(forward[20000]), "03/01/2026 05:33:19 ui_event: r19999");
}

}  // namespace
}  // namespace roo
