#include "core/row_pipeline.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace roo {
namespace {

// Records what reaches the inner sink, in order.
class Recorder : public RowSink {
 public:
  void emit(const Row& row) override { events.push_back("row " + row.kind + " " + *row.text); }
  void end_source(const std::string& sha) override { events.push_back("end " + sha); }
  std::vector<std::string> events;
};

TEST(RowPipeline, KeepsOrderAndEndSourceWaitsUntilEverythingIsWritten) {
  Recorder inner;
  std::vector<std::string> expected;
  {
    RowPipeline pipeline(inner, 8);  // a small queue so the parsing side blocks often
    for (int source = 0; source < 50; ++source) {
      for (int i = 0; i < 200; ++i) {
        Row r;
        r.kind = "k";
        r.text = std::to_string(source) + "/" + std::to_string(i);
        expected.push_back("row k " + *r.text);
        pipeline.emit(std::move(r));
      }
      pipeline.end_source(std::to_string(source));
      expected.push_back("end " + std::to_string(source));
      // end_source returned: every row of this source has been written already.
      EXPECT_EQ(inner.events.size(), expected.size());
    }
  }
  EXPECT_EQ(inner.events, expected);
}

}  // namespace
}  // namespace roo
