// APFS containers through libtsk's pool API (tsk_glue/apfs_pool.h), on a container that macOS wrote:
// fixtures/external/dfvfs-apfs.raw (fixtures/README.md "External images"). The expected values are what libtsk's own
// tools (pstat, fls, istat, icat) print for it; where those tools are installed the tests also run them and compare.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <memory>
#include <regex>

#include "tests/tsk_glue/tsk_test_util.h"
#include "tsk_glue/apfs_pool.h"
#include "tsk_glue/tsk_evidence.h"

namespace roo::tsk {
namespace {

using test::TempDir;
namespace fs = std::filesystem;

std::string apfs_image() { return (test::fixtures() / "external" / "dfvfs-apfs.raw").string(); }

// A command's standard output, or nullopt when it could not run (the tool is not installed).
std::optional<std::string> command_output(const std::string& cmd) {
  std::unique_ptr<FILE, int (*)(FILE*)> p(popen((cmd + " 2>/dev/null").c_str(), "r"), pclose);
  if (!p) return std::nullopt;
  std::string out;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = std::fread(buf.data(), 1, buf.size(), p.get())) > 0) out.append(buf.data(), n);
  const int status = pclose(p.release());
  if (status != 0) return std::nullopt;
  return out;
}

const Partition& only_allocated(const std::vector<Partition>& parts) {
  const Partition* found = nullptr;
  for (const Partition& p : parts)
    if (p.kind == Partition::allocated) {
      EXPECT_EQ(found, nullptr) << "more than one allocated partition";
      found = &p;
    }
  EXPECT_NE(found, nullptr);
  return *found;
}

FileMeta child(FileSystemView& view, const FileMeta& dir, const std::string& name) {
  for (const FileMeta& m : view.list_dir(dir))
    if (m.name == name) return m;
  ADD_FAILURE() << "no " << name << " in " << dir.path;
  return {};
}

TEST(ApfsPool, ContainerAtOffsetZeroIsListedWithItsVolume) {
  auto image = Image::open({apfs_image()});
  const std::vector<Partition> parts = image->partitions();
  const Partition& p = only_allocated(parts);
  EXPECT_EQ(p.vs_type, "none");
  ASSERT_TRUE(p.container);
  // pstat: "Container d08a9fa0-…", "Block Size: 4096 B", "Number of Blocks: 1014", one volume.
  EXPECT_EQ(p.container->uuid, "d08a9fa0-d5a5-458b-813e-ebf9bf5d5338");
  EXPECT_EQ(p.container->block_size, 4096u);
  EXPECT_EQ(p.container->blocks, 1014u);
  ASSERT_EQ(p.container->volumes.size(), 1u);
  const PoolVolume& v = p.container->volumes[0];
  // pstat: "Volume 458ed10d-…", "APSB Block Number: 107", "Name (Role): apfs_test (No specific role)",
  // "Case Sensitive: No", "Encrypted: No".
  EXPECT_EQ(v.uuid, "458ed10d-8ac3-4af1-8dfd-3954d151a3f3");
  EXPECT_EQ(v.block, 107u);
  EXPECT_EQ(v.name, "apfs_test");
  EXPECT_EQ(v.role, "none");
  EXPECT_FALSE(v.case_sensitive);
  EXPECT_FALSE(v.encrypted);
  EXPECT_TRUE(v.password_hint.empty());
}

TEST(ApfsPool, AgreesWithPstatWhereItIsInstalled) {
  auto out = command_output("pstat '" + apfs_image() + "'");
  if (!out) GTEST_SKIP() << "pstat (sleuthkit) is not installed";
  auto image = Image::open({apfs_image()});
  const std::vector<Partition> parts = image->partitions();
  const Partition& p = only_allocated(parts);
  ASSERT_TRUE(p.container);
  std::smatch m;
  ASSERT_TRUE(std::regex_search(*out, m, std::regex("Container ([0-9a-f-]{36})")));
  EXPECT_EQ(m[1].str(), p.container->uuid);
  std::vector<std::pair<std::string, uint64_t>> listed;  // volume UUID, APSB block, in pstat's order
  const std::regex volume("Volume ([0-9a-f-]{36})[\\s\\S]*?APSB Block Number: ([0-9]+)");
  for (auto it = std::sregex_iterator(out->begin(), out->end(), volume); it != std::sregex_iterator(); ++it)
    listed.emplace_back((*it)[1].str(), std::stoull((*it)[2].str()));
  ASSERT_EQ(listed.size(), p.container->volumes.size());
  for (size_t i = 0; i < listed.size(); ++i) {
    EXPECT_EQ(listed[i].first, p.container->volumes[i].uuid);
    EXPECT_EQ(listed[i].second, p.container->volumes[i].block);
  }
}

TEST(ApfsPool, VolumeOpensAndReadsLikeFlsAndIcat) {
  auto image = Image::open({apfs_image()});
  const std::vector<Partition> parts = image->partitions();
  Partition p = only_allocated(parts);
  ASSERT_TRUE(p.container && !p.container->volumes.empty());
  std::string why;
  // The container itself is not a file system: each volume is.
  EXPECT_EQ(image->open_fs(p, "dfvfs-apfs.raw", &why), nullptr);
  EXPECT_NE(why.find("APFS container"), std::string::npos) << why;
  p.pool_volume = p.container->volumes[0];
  auto view = image->open_fs(p, "dfvfs-apfs.raw", &why);
  ASSERT_TRUE(view) << why;
  EXPECT_EQ(view->volume().fs_type, "apfs");
  ASSERT_TRUE(view->volume().pool_volume);
  EXPECT_EQ(view->volume().pool_volume->uuid, "458ed10d-8ac3-4af1-8dfd-3954d151a3f3");
  EXPECT_EQ(view->volume().pool_volume->block, 107u);
  EXPECT_EQ(view->volume().partition_offset, std::optional<uint64_t>(0));

  // fls -P apfs -B 107: .fseventsd, a_directory, a_link, passwords.txt at the root.
  std::vector<std::string> names;
  FileMeta root = view->root();
  for (const FileMeta& m : view->list_dir(root)) names.push_back(m.name);
  EXPECT_EQ(names, (std::vector<std::string>{".fseventsd", "a_directory", "a_link", "passwords.txt"}));

  // istat -P apfs -B 107 IMG 17: a_file, 53 bytes, times to the nanosecond, the creation time among them.
  FileMeta file = child(*view, child(*view, root, "a_directory"), "a_file");
  EXPECT_EQ(file.inode, std::optional<uint64_t>(17));
  EXPECT_EQ(file.size, std::optional<uint64_t>(53));
  ASSERT_TRUE(file.mtime && file.crtime && file.ctime && file.atime);
  EXPECT_EQ(file.mtime->seconds, 1642144781);  // 2022-01-14 07:19:41 UTC
  EXPECT_EQ(file.mtime->nanos, 201997443u);
  EXPECT_EQ(file.crtime->nanos, 197370938u);
  EXPECT_EQ(file.ctime->nanos, 211025598u);
  auto src = view->open(file);
  ASSERT_TRUE(src);
  const std::string bytes = test::read_all(*src);
  EXPECT_EQ(bytes.size(), 53u);
  if (auto icat = command_output("icat -P apfs -B 107 '" + apfs_image() + "' 17")) {
    EXPECT_EQ(bytes, *icat);
  }
}

TEST(ApfsPool, NoContainerOnOtherFileSystems) {
  for (const char* name : {"demo.E01", "linux-ext4.raw.001"}) {
    auto image = Image::open({test::image(name)});
    for (const Partition& p : image->partitions()) EXPECT_FALSE(p.container) << name << " partition " << p.index;
  }
}

// A container whose volume superblock is damaged: listed, the volume fails to open with a reason, nothing crashes.
TEST(ApfsPool, DamagedVolumeSuperblockIsAReasonNotACrash) {
  TempDir tmp;
  const fs::path copy = tmp.path() / "damaged-apfs.raw";
  std::string bytes = test::read_host_file(apfs_image());
  for (size_t i = 107 * 4096 + 32; i < 107 * 4096 + 4096; ++i) bytes[i] = '\xff';  // APSB block, after its header
  std::ofstream(copy, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  auto image = Image::open({copy.string()});
  const std::vector<Partition> parts = image->partitions();
  const Partition& p = only_allocated(parts);
  if (!p.container) {  // libtsk refused the container: the partition says why
    EXPECT_FALSE(p.container_error.empty());
    std::string why;
    EXPECT_EQ(image->open_fs(p, "damaged-apfs.raw", &why), nullptr);
    EXPECT_EQ(why.rfind("damaged APFS container: ", 0), 0u) << why;
    return;
  }
  for (const PoolVolume& v : p.container->volumes) {
    Partition one = p;
    one.pool_volume = v;
    std::string why;
    auto view = image->open_fs(one, "damaged-apfs.raw", &why);
    if (!view) {
      EXPECT_FALSE(why.empty());
    }
  }
}

TEST(ApfsPool, RoleNamesFollowAppleReference) {
  EXPECT_EQ(apfs_role_name(0x0000), "none");
  EXPECT_EQ(apfs_role_name(0x0001), "system");
  EXPECT_EQ(apfs_role_name(0x0010), "preboot");
  EXPECT_EQ(apfs_role_name(0x0004), "recovery");
  EXPECT_EQ(apfs_role_name(0x0008), "vm");
  EXPECT_EQ(apfs_role_name(0x0040), "data");  // 1 << APFS_VOLUME_ENUM_SHIFT
  EXPECT_EQ(apfs_role_name(0x0180), "backup");
  EXPECT_EQ(apfs_role_name(0x0123), "unknown (0x0123)");
}

}  // namespace
}  // namespace roo::tsk
