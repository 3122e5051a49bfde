// tsk_glue/ewf_image.h: an EWF image through roo-ingest's own libewf handle reads as libtsk's own open reads it, and
// keeps the chunk checksum errors its reads meet (fixtures/damaged/, built by fixtures/corrupt-ewf-chunk.py).
#include "tsk_glue/ewf_image.h"

#include <gtest/gtest.h>
#include <tsk/libtsk.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "tests/tsk_glue/tsk_test_util.h"

namespace roo::tsk {
namespace {

using test::image;

std::string damaged() { return (test::fixtures() / "damaged" / "carve-ext4-badchunk.E01").string(); }

using ImgPtr = std::unique_ptr<TSK_IMG_INFO, void (*)(TSK_IMG_INFO*)>;
ImgPtr own(TSK_IMG_INFO* i) { return ImgPtr(i, [](TSK_IMG_INFO* p) { tsk_img_close(p); }); }

ImgPtr libtsk_open(const std::string& path) {
  const char* names[] = {path.c_str()};
  return own(tsk_img_open_utf8(1, names, TSK_IMG_TYPE_EWF_EWF, 0));
}

std::string read_all(TSK_IMG_INFO* img) {
  std::string out(static_cast<size_t>(img->size), '\0');
  for (TSK_OFF_T at = 0; at < img->size; at += 65536) {
    const size_t len = static_cast<size_t>(std::min<TSK_OFF_T>(65536, img->size - at));
    EXPECT_EQ(tsk_img_read(img, at, &out[static_cast<size_t>(at)], len), static_cast<ssize_t>(len)) << at;
  }
  return out;
}

void expect_same_as_libtsk(const std::string& path) {
  ImgPtr theirs = libtsk_open(path), ours = own(open_ewf_image({path}));
  ASSERT_TRUE(theirs && ours) << path;
  EXPECT_EQ(ours->itype, theirs->itype);
  EXPECT_STREQ(tsk_img_type_toname(ours->itype), "ewf");
  EXPECT_EQ(ours->size, theirs->size);
  EXPECT_EQ(ours->sector_size, theirs->sector_size);
  ASSERT_EQ(ours->num_img, theirs->num_img);
  for (int i = 0; i < ours->num_img; ++i) EXPECT_STREQ(ours->images[i], theirs->images[i]);
  EXPECT_TRUE(read_all(ours.get()) == read_all(theirs.get())) << path;
  EXPECT_TRUE(ewf_checksum_errors(theirs.get()).empty());  // not an image of ours: nothing to ask
}

TEST(EwfImage, ReadsAsLibtskReadsIt) {
  expect_same_as_libtsk(image("carve-ext4.E01"));
  expect_same_as_libtsk(image("demo-split.E01"));  // three segments, found by name
  expect_same_as_libtsk(damaged());                 // the bad chunk reads as zeros through both
}

TEST(EwfImage, GoodImageHasNoChecksumErrors) {
  ImgPtr img = own(open_ewf_image({image("carve-ext4.E01")}));
  ASSERT_TRUE(img);
  read_all(img.get());
  EXPECT_TRUE(ewf_checksum_errors(img.get()).empty());
}

TEST(EwfImage, BadChunkIsRecordedWhenRead) {
  ImgPtr img = own(open_ewf_image({damaged()}));
  ASSERT_TRUE(img);
  char buf[4096];
  ASSERT_EQ(tsk_img_read(img.get(), 0, buf, sizeof buf), static_cast<ssize_t>(sizeof buf));
  EXPECT_TRUE(ewf_checksum_errors(img.get()).empty());  // chunk 0 is sound
  ASSERT_EQ(tsk_img_read(img.get(), 2440 * 512, buf, sizeof buf), static_cast<ssize_t>(sizeof buf));
  EXPECT_EQ(std::string(buf, sizeof buf), std::string(sizeof buf, '\0'));
  const std::vector<EwfChecksumError> errors = ewf_checksum_errors(img.get());
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].first_sector, 2432u);
  EXPECT_EQ(errors[0].sectors, 64u);
  EXPECT_EQ(errors[0].sector_size, 512u);
  EXPECT_EQ(errors[0].segment, "carve-ext4-badchunk.E01");
  EXPECT_EQ(ewf_checksum_warning(errors[0]),
            "EWF checksum error: sectors 2432-2495 (media bytes 1245184-1277951, in carve-ext4-badchunk.E01) "
            "failed their chunk checksum and were read as zeros");
}

TEST(EwfImage, SplitSetFindsEverySegmentByName) {
  ImgPtr img = own(open_ewf_image({image("demo-split.E01")}));
  ASSERT_TRUE(img);
  EXPECT_EQ(img->num_img, 3);
}

TEST(EwfImage, NotEwfIsNull) {
  EXPECT_EQ(open_ewf_image({image("linux-ext4.raw.001")}), nullptr);
  EXPECT_EQ(open_ewf_image({}), nullptr);
}

}  // namespace
}  // namespace roo::tsk
