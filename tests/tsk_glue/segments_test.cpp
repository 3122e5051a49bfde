#include "tsk_glue/segments.h"

#include <gtest/gtest.h>

namespace roo::tsk::segments {
namespace {

TEST(TskSegments, SplitRawNamesFollowLibtsk) {
  EXPECT_EQ(split_raw_name("/x/disk.raw.001", 1), "/x/disk.raw.001");
  EXPECT_EQ(split_raw_name("/x/disk.raw.001", 2), "/x/disk.raw.002");
  EXPECT_EQ(split_raw_name("/x/disk.raw.001", 1000), "/x/disk.raw.1000");  // libtsk counts past 999
  EXPECT_EQ(split_raw_name("disk_000", 2), "disk_001");
  EXPECT_EQ(split_raw_name("disk.01", 3), "disk.03");
  EXPECT_EQ(split_raw_name("disk.00", 3), "disk.02");
  EXPECT_EQ(split_raw_name("disk.aa", 2), "disk.ab");
  EXPECT_EQ(split_raw_name("disk.aa", 27), "disk.ba");
  EXPECT_EQ(split_raw_name("disk.aa", 26 * 26 + 1), "");  // out of range
  EXPECT_EQ(split_raw_name("xaa", 3), "xac");
  EXPECT_EQ(split_raw_name("disk.AAA", 2), "disk.AAB");
  EXPECT_EQ(split_raw_name("disk.dmg", 2), "disk.002.dmgpart");
  EXPECT_EQ(split_raw_name("disk.bin", 2), "disk(2).bin");
  EXPECT_EQ(split_raw_name("disk.raw", 2), "");
  EXPECT_EQ(split_raw_name("disk.raw", 1), "");  // not a split scheme at all
  EXPECT_EQ(split_raw_name("disk.002", 2), "");  // a later segment is not a starting name
}

TEST(TskSegments, LaterSplitRawSegment) {
  auto s = later_split_raw_segment("/x/disk.raw.003");
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->first_one_based, "/x/disk.raw.001");
  EXPECT_EQ(s->first_zero_based, "/x/disk.raw.000");
  EXPECT_EQ(s->number, 3);
  EXPECT_TRUE(later_split_raw_segment("disk_12").has_value());
  EXPECT_FALSE(later_split_raw_segment("disk.001").has_value());
  EXPECT_FALSE(later_split_raw_segment("disk.000").has_value());
  EXPECT_FALSE(later_split_raw_segment("disk.raw").has_value());
  EXPECT_FALSE(later_split_raw_segment("disk.2024").has_value());  // 4 digits: not a libtsk scheme
  EXPECT_FALSE(later_split_raw_segment("disk2").has_value());
}

TEST(TskSegments, EwfNames) {
  EXPECT_EQ(ewf_segment_name("/a/demo.E01", 1), "/a/demo.E01");
  EXPECT_EQ(ewf_segment_name("/a/demo.E01", 2), "/a/demo.E02");
  EXPECT_EQ(ewf_segment_name("/a/demo.E07", 99), "/a/demo.E99");
  EXPECT_EQ(ewf_segment_name("/a/demo.E01", 100), "/a/demo.EAA");
  EXPECT_EQ(ewf_segment_name("/a/demo.E01", 101), "/a/demo.EAB");
  EXPECT_EQ(ewf_segment_name("/a/demo.E01", 100 + 676), "/a/demo.FAA");
  EXPECT_EQ(ewf_segment_name("/a/demo.EAA", 2), "/a/demo.E02");
  EXPECT_EQ(ewf_segment_name("demo.e01", 2), "demo.e02");
  EXPECT_EQ(ewf_segment_name("demo.s01", 3), "demo.s03");
  EXPECT_EQ(ewf_segment_name("demo.E1", 2), "");
  EXPECT_EQ(ewf_segment_name("demo", 2), "");
}

}  // namespace
}  // namespace roo::tsk::segments
