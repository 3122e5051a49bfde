// TskFileSystemView against the committed images: every name and every byte must match the source trees
// in fixtures/trees/ that fixtures/build-images.sh put into them.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "tests/tsk_glue/tsk_test_util.h"
#include "tsk_glue/tsk_evidence.h"

namespace roo::tsk {
namespace {

using namespace test;
namespace fs = std::filesystem;

struct Opened {
  std::unique_ptr<Image> image;
  std::unique_ptr<FileSystemView> view;
};

// Opens the file system of the allocated partition with the given description ("" = the only one).
Opened open_view(const std::vector<std::string>& paths, const std::string& part_desc = "") {
  Opened o;
  o.image = Image::open(paths);
  for (const auto& p : o.image->partitions()) {
    if (p.kind != Partition::allocated) continue;
    if (!part_desc.empty() && p.description != part_desc) continue;
    std::string why;
    o.view = o.image->open_fs(p, fs::path(paths[0]).filename().string(), &why);
    EXPECT_TRUE(o.view) << why;
    break;
  }
  return o;
}

std::optional<FileMeta> find(const std::vector<FileMeta>& list, const std::string& name) {
  for (const auto& m : list)
    if (m.name == name) return m;
  return std::nullopt;
}

// Walks `dir` of the view and the host directory `host` together.
// skip(name, depth) excludes names that exist only in the file system (lost+found, $MFT, …).
void compare_tree(FileSystemView& view, const FileMeta& dir, const fs::path& host, const std::string& tree_name,
                  bool ntfs, int* files_seen, int depth = 0) {
  std::vector<FileMeta> listed = view.list_dir(dir);
  // sorted by name bytes
  for (size_t i = 1; i < listed.size(); ++i) EXPECT_LE(listed[i - 1].name, listed[i].name) << dir.path;

  std::set<std::string> host_names;
  for (const auto& e : fs::directory_iterator(host)) host_names.insert(e.path().filename().string());
  std::set<std::string> fs_names;
  for (const auto& m : listed) {
    if (depth == 0 && !ntfs && m.name == "lost+found") continue;
    if (depth == 0 && ntfs && m.name[0] == '$') continue;  // NTFS system files at the root
    fs_names.insert(m.name);
  }
  EXPECT_EQ(fs_names, host_names) << "directory " << dir.path;

  for (const auto& m : listed) {
    if (!host_names.count(m.name)) continue;
    fs::path hp = host / m.name;
    SCOPED_TRACE(m.path);
    EXPECT_EQ(m.path, (dir.path == "/" ? "" : dir.path) + "/" + m.name);
    EXPECT_TRUE(m.name_allocated);
    EXPECT_TRUE(m.meta_allocated);
    EXPECT_FALSE(m.reallocated);
    EXPECT_EQ(m.recovery, Recovery::allocated);
    ASSERT_TRUE(m.inode.has_value());
    EXPECT_EQ(m.meta_seq.has_value(), ntfs);
    EXPECT_EQ(m.is_dir, fs::is_directory(hp));
    // times fixed by the build script
    ASSERT_TRUE(m.crtime.has_value());
    EXPECT_EQ(m.crtime->seconds, kFsEpoch);
    if (!ntfs) {  // NTFS keeps the MFT-change time in ctime: also kFsEpoch, set by ntfs_put
      ASSERT_TRUE(m.ctime.has_value());
      EXPECT_EQ(m.ctime->seconds, kFsEpoch);
    }
    if (!has_custom_times(tree_name, m.path)) {
      ASSERT_TRUE(m.mtime.has_value());
      EXPECT_EQ(*m.mtime, (FsTime{kMtimeSec, kMtimeNanos}));
      ASSERT_TRUE(m.atime.has_value());
      EXPECT_EQ(*m.atime, (FsTime{kAtimeSec, kAtimeNanos}));
    }
    if (m.is_dir) {
      EXPECT_EQ(m.attr.empty(), !ntfs);
      compare_tree(view, m, hp, tree_name, ntfs, files_seen, depth + 1);
    } else {
      if (ntfs) {
        EXPECT_EQ(m.attr.rfind("128-", 0), 0u) << m.attr;  // unnamed $DATA
      } else {
        EXPECT_EQ(m.attr, "");
      }
      std::string want = read_host_file(hp);
      ASSERT_TRUE(m.size.has_value());
      EXPECT_EQ(*m.size, want.size());
      auto src = view.open(m);
      ASSERT_TRUE(src) << (view.errors().empty() ? "" : view.errors().back());
      EXPECT_EQ(src->size(), want.size());
      EXPECT_EQ(read_all(*src), want);
      ++*files_seen;
    }
  }
}

TEST(TskFsView, DemoExt4MatchesLinuxTree) {
  auto o = open_view({image("demo.E01")}, "linux");
  ASSERT_TRUE(o.view);
  FileMeta root = o.view->root();
  EXPECT_EQ(root.path, "/");
  EXPECT_TRUE(root.is_dir);
  EXPECT_EQ(root.inode, 2u);  // ext root inode
  int files = 0;
  compare_tree(*o.view, root, tree("linux-ext4"), "linux-ext4", false, &files);
  EXPECT_GT(files, 5);
  EXPECT_TRUE(o.view->errors().empty());
}

TEST(TskFsView, DemoNtfsMatchesWindowsTree) {
  auto o = open_view({image("demo.E01")}, "windows");
  ASSERT_TRUE(o.view);
  FileMeta root = o.view->root();
  EXPECT_EQ(root.inode, 5u);  // NTFS root MFT entry
  auto top = o.view->list_dir(root);
  // system files are listed; $OrphanFiles is not
  EXPECT_TRUE(find(top, "$MFT").has_value());
  EXPECT_FALSE(find(top, "$OrphanFiles").has_value());
  int files = 0;
  compare_tree(*o.view, root, tree("windows-ntfs"), "windows-ntfs", true, &files);
  EXPECT_GT(files, 5);
  EXPECT_TRUE(o.view->errors().empty());
}

TEST(TskFsView, SplitImagesMatchToo) {
  int files = 0;
  {
    auto o = open_view({image("linux-ext4.raw.001")});
    ASSERT_TRUE(o.view);
    EXPECT_EQ(o.view->volume().fs_type, "ext4");
    compare_tree(*o.view, o.view->root(), tree("linux-ext4"), "linux-ext4", false, &files);
  }
  {
    auto o = open_view({image("demo-split.E01")}, "windows");
    ASSERT_TRUE(o.view);
    compare_tree(*o.view, o.view->root(), tree("windows-ntfs"), "windows-ntfs", true, &files);
  }
  EXPECT_GT(files, 10);
}

TEST(TskFsView, ListsAliceHome) {
  auto o = open_view({image("demo.E01")}, "linux");
  ASSERT_TRUE(o.view);
  FileMeta dir = o.view->root();
  for (const char* part : {"home", "alice"}) {
    auto next = find(o.view->list_dir(dir), part);
    ASSERT_TRUE(next.has_value()) << part;
    dir = *next;
  }
  EXPECT_EQ(dir.path, "/home/alice");
  std::vector<std::string> want;
  for (const auto& e : fs::directory_iterator(tree("linux-ext4") / "home" / "alice"))
    want.push_back(e.path().filename().string());
  std::sort(want.begin(), want.end());
  std::vector<std::string> got;
  for (const auto& m : o.view->list_dir(dir)) got.push_back(m.name);
  EXPECT_EQ(got, want);
}

// Walks an absolute path name by name; nullopt when a component is missing.
std::optional<FileMeta> walk(FileSystemView& v, const std::string& path) {
  FileMeta cur = v.root();
  size_t pos = 1;
  while (pos < path.size()) {
    size_t slash = path.find('/', pos);
    std::string part = path.substr(pos, slash == std::string::npos ? std::string::npos : slash - pos);
    auto next = find(v.list_dir(cur), part);
    if (!next) return std::nullopt;
    cur = *next;
    if (slash == std::string::npos) break;
    pos = slash + 1;
  }
  return cur;
}

void check_deleted_fixture(const std::string& image_name, const std::string& tasks, bool ntfs) {
  auto o = open_view({image(image_name)});
  ASSERT_TRUE(o.view);
  const std::string want = read_host_file(fixtures() / "tools" / "deleted-task" / "ui_messages.json");

  auto tasks_dir = walk(*o.view, tasks);
  ASSERT_TRUE(tasks_dir.has_value());
  auto listed = o.view->list_dir(*tasks_dir);

  // A: the task directory is still allocated, its ui_messages.json is a deleted name
  auto a = find(listed, kDeletedTaskA);
  ASSERT_TRUE(a.has_value());
  EXPECT_TRUE(a->name_allocated);
  EXPECT_TRUE(a->is_dir);
  auto a_files = o.view->list_dir(*a);
  auto ui = find(a_files, "ui_messages.json");
  ASSERT_TRUE(ui.has_value());
  EXPECT_EQ(ui->path, tasks + "/" + kDeletedTaskA + "/ui_messages.json");
  EXPECT_FALSE(ui->name_allocated);
  EXPECT_FALSE(ui->meta_allocated);
  EXPECT_FALSE(ui->reallocated);
  EXPECT_EQ(ui->recovery, Recovery::deleted);
  EXPECT_FALSE(ui->is_dir);
  EXPECT_EQ(ui->meta_seq.has_value(), ntfs);
  ASSERT_TRUE(ui->size.has_value());
  EXPECT_EQ(*ui->size, want.size());
  // debugfs and ntfs_delete leave the block map, so the bytes are still there
  auto src = o.view->open(*ui);
  ASSERT_TRUE(src);
  EXPECT_EQ(read_all(*src), want);

  // B: the directory itself is a deleted name; listing it still finds the deleted file
  auto b = find(listed, kDeletedTaskB);
  ASSERT_TRUE(b.has_value());
  EXPECT_FALSE(b->name_allocated);
  EXPECT_EQ(b->recovery, Recovery::deleted);
  EXPECT_TRUE(b->is_dir);
  auto b_files = o.view->list_dir(*b);
  auto ui_b = find(b_files, "ui_messages.json");
  ASSERT_TRUE(ui_b.has_value()) << "entries in deleted dir: " << b_files.size();
  EXPECT_FALSE(ui_b->name_allocated);
  EXPECT_EQ(ui_b->recovery, Recovery::deleted);
  auto src_b = o.view->open(*ui_b);
  ASSERT_TRUE(src_b);
  EXPECT_EQ(read_all(*src_b), want);

  // every other name in the image is allocated
  for (const auto& m : listed) {
    if (m.name != kDeletedTaskB) {
      EXPECT_TRUE(m.name_allocated) << m.path;
    }
  }
}

TEST(TskFsView, DeletedExt4Files) { check_deleted_fixture("deleted-ext4.E01", kRooTasksLinux, false); }
TEST(TskFsView, DeletedNtfsFiles) { check_deleted_fixture("deleted-ntfs.E01", kRooTasksWindows, true); }

// edge-ext4.E01 is generated by the build script itself (see fixtures/images/README.md).
TEST(TskFsView, NamesAreKeptAsBytes) {
  auto o = open_view({image("edge-ext4.E01")});
  ASSERT_TRUE(o.view);
  auto odd = walk(*o.view, "/odd");
  ASSERT_TRUE(odd.has_value());
  const std::string longest = std::string(251, 'L') + ".txt";
  const std::vector<std::pair<std::string, std::string>> want = {
      // sorted by bytes: '-' < 'L' < 'b' < "caf\xc3" < "caf\xe9"
      {"-dash", "starts with a dash\n"},
      {longest, "longest name ext4 allows\n"},
      {"bad-\xff\xfe-name.txt", "invalid UTF-8 in the name\n"},
      {"caf\xc3\xa9 \xe2\x98\x83.txt", "UTF-8 name\n"},
      {"caf\xe9.txt", "Latin-1 e-acute, not UTF-8\n"},
  };
  auto listed = o.view->list_dir(*odd);
  ASSERT_EQ(listed.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(listed[i].name, want[i].first) << i;
    EXPECT_EQ(listed[i].path, "/odd/" + want[i].first);
    auto src = o.view->open(listed[i]);
    ASSERT_TRUE(src) << i;
    EXPECT_EQ(read_all(*src), want[i].second);
  }
}

TEST(TskFsView, DeeperThanLibtskWalks) {
  auto o = open_view({image("edge-ext4.E01")});
  ASSERT_TRUE(o.view);
  auto dir = walk(*o.view, "/deep");
  ASSERT_TRUE(dir.has_value());
  std::string path = "/deep";
  for (int i = 1; i <= 140; ++i) {
    auto next = find(o.view->list_dir(*dir), "d" + std::to_string(i));
    ASSERT_TRUE(next.has_value()) << "depth " << i;
    path += "/d" + std::to_string(i);
    EXPECT_EQ(next->path, path);
    dir = next;
  }
  auto leaf = find(o.view->list_dir(*dir), "leaf.txt");
  ASSERT_TRUE(leaf.has_value());
  auto src = o.view->open(*leaf);
  ASSERT_TRUE(src);
  EXPECT_EQ(read_all(*src), "leaf at depth 140\n");
  EXPECT_TRUE(o.view->errors().empty());
}

TEST(TskFsView, ByteSourceEdges) {
  auto o = open_view({image("demo.E01")}, "linux");
  ASSERT_TRUE(o.view);
  // the largest file in the tree
  fs::path biggest;
  for (const auto& e : fs::recursive_directory_iterator(tree("linux-ext4")))
    if (e.is_regular_file() && (biggest.empty() || e.file_size() > fs::file_size(biggest))) biggest = e.path();
  ASSERT_FALSE(biggest.empty());
  std::string rel = "/" + fs::relative(biggest, tree("linux-ext4")).generic_string();
  auto m = walk(*o.view, rel);
  ASSERT_TRUE(m.has_value()) << rel;
  auto src = o.view->open(*m);
  ASSERT_TRUE(src);
  std::string want = read_host_file(biggest);
  ASSERT_GT(want.size(), 10u);
  char buf[8];
  EXPECT_EQ(src->read_at(want.size(), buf, sizeof buf), 0);        // at end
  EXPECT_EQ(src->read_at(want.size() + 100, buf, sizeof buf), 0);  // past end
  EXPECT_EQ(src->read_at(0, buf, 0), 0);
  EXPECT_EQ(src->read_at(want.size() - 3, buf, sizeof buf), 3);  // short read at the tail
  EXPECT_EQ(std::string(buf, 3), want.substr(want.size() - 3));
  EXPECT_EQ(src->read_at(5, buf, 4), 4);
  EXPECT_EQ(std::string(buf, 4), want.substr(5, 4));

  // a source outlives its view and image
  o.view.reset();
  o.image.reset();
  EXPECT_EQ(read_all(*src), want);
}

TEST(TskFsView, BadRequestsAreErrorsNotCrashes) {
  auto o = open_view({image("demo.E01")}, "linux");
  ASSERT_TRUE(o.view);
  FileMeta none;
  none.path = "/nowhere";
  EXPECT_TRUE(o.view->list_dir(none).empty());
  EXPECT_EQ(o.view->open(none), nullptr);
  FileMeta bogus;
  bogus.path = "/bogus";
  bogus.inode = 987654321;
  EXPECT_TRUE(o.view->list_dir(bogus).empty());
  EXPECT_EQ(o.view->open(bogus), nullptr);
  EXPECT_EQ(o.view->errors().size(), 4u);
  for (const auto& e : o.view->errors()) EXPECT_EQ(e.find('\n'), std::string::npos) << e;
}

TEST(TskFsView, NtfsAttributeSelectsTheStream) {
  auto o = open_view({image("demo.E01")}, "windows");
  ASSERT_TRUE(o.view);
  fs::path any;
  for (const auto& e : fs::recursive_directory_iterator(tree("windows-ntfs")))
    if (e.is_regular_file() && e.file_size() > 0) {
      any = e.path();
      break;
    }
  ASSERT_FALSE(any.empty());
  auto m = walk(*o.view, "/" + fs::relative(any, tree("windows-ntfs")).generic_string());
  ASSERT_TRUE(m.has_value());
  FileMeta wrong = *m;
  wrong.attr = "128-99";  // no such attribute id
  EXPECT_EQ(o.view->open(wrong), nullptr);
  FileMeta plain = *m;
  plain.attr.clear();  // default attribute
  auto src = o.view->open(plain);
  ASSERT_TRUE(src);
  EXPECT_EQ(read_all(*src), read_host_file(any));
}

}  // namespace
}  // namespace roo::tsk
