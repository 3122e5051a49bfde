// plugin/huge_pages.h: when roo-ingest starts itself again with glibc.malloc.hugetlb=1, and that the heap then really
// gets huge pages (huge_pages_probe, started as roo-ingest is).
#include "plugin/huge_pages.h"

#include <gnu/libc-version.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>

namespace roo {
namespace {

const std::string kMadvise = "always [madvise] never\n";

TEST(HugePageTunables, SetWhenTheKernelGivesHugePagesOnRequest) {
  EXPECT_EQ(huge_page_tunables(nullptr, kMadvise), "glibc.malloc.hugetlb=1");
  EXPECT_EQ(huge_page_tunables("", kMadvise), "glibc.malloc.hugetlb=1");
}

TEST(HugePageTunables, KeepsTheExaminersOtherTunables) {
  EXPECT_EQ(huge_page_tunables("glibc.malloc.arena_max=2", kMadvise),
            "glibc.malloc.arena_max=2:glibc.malloc.hugetlb=1");
  EXPECT_EQ(huge_page_tunables("glibc.malloc.hugetlbx=3", kMadvise), "glibc.malloc.hugetlbx=3:glibc.malloc.hugetlb=1");
}

TEST(HugePageTunables, NoRestartWhenTheTunableIsSetAlready) {
  // Set by an earlier start (no loop), or by the examiner: =0 turns huge pages off.
  EXPECT_EQ(huge_page_tunables("glibc.malloc.hugetlb=1", kMadvise), std::nullopt);
  EXPECT_EQ(huge_page_tunables("glibc.malloc.hugetlb=0", kMadvise), std::nullopt);
  EXPECT_EQ(huge_page_tunables("glibc.malloc.arena_max=2:glibc.malloc.hugetlb=0", kMadvise), std::nullopt);
}

TEST(HugePageTunables, NoRestartWhenTheKernelModeIsNotMadvise) {
  EXPECT_EQ(huge_page_tunables(nullptr, "[always] madvise never\n"), std::nullopt);  // huge pages already
  EXPECT_EQ(huge_page_tunables(nullptr, "always madvise [never]\n"), std::nullopt);  // none to have
  EXPECT_EQ(huge_page_tunables(nullptr, ""), std::nullopt);                          // no THP in this kernel
}

struct ProbeOutput {
  std::string tunables;
  int huge_advised = -1;
};

ProbeOutput run_probe(const std::string& env) {
  const std::string command = "env " + env + " '" + HUGE_PAGES_PROBE + "'";
  ProbeOutput out;
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return out;
  char line[4096];
  while (std::fgets(line, sizeof line, pipe)) {
    std::string s(line);
    if (!s.empty() && s.back() == '\n') s.pop_back();
    if (s.rfind("tunables=", 0) == 0) out.tunables = s.substr(9);
    if (s.rfind("huge_advised=", 0) == 0) out.huge_advised = std::stoi(s.substr(13));
  }
  pclose(pipe);
  return out;
}

std::string thp_mode() {
  std::ifstream in("/sys/kernel/mm/transparent_hugepage/enabled");
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Why a restart cannot be seen here, or "" when it can.
std::string cannot_restart() {
#ifdef ROO_SANITIZER_ALLOCATOR
  return "the sanitizer's allocator ignores glibc's tunables, so there is no restart";
#endif
  int major = 0, minor = 0;
  if (std::sscanf(gnu_get_libc_version(), "%d.%d", &major, &minor) != 2 || major * 100 + minor < 235)
    return "glibc older than 2.35 has no glibc.malloc.hugetlb";
  if (thp_mode().find("[madvise]") == std::string::npos) return "the kernel's THP mode is not madvise";
  return "";
}

TEST(RestartWithHugePages, TheRestartedProcessAsksForHugePagesAndKeepsOtherTunables) {
  if (const std::string why = cannot_restart(); !why.empty()) GTEST_SKIP() << why;
  const ProbeOutput plain = run_probe("-u GLIBC_TUNABLES");
  EXPECT_EQ(plain.tunables, "glibc.malloc.hugetlb=1");
  EXPECT_EQ(plain.huge_advised, 1);
  const ProbeOutput with_other = run_probe("GLIBC_TUNABLES=glibc.malloc.arena_max=4");
  EXPECT_EQ(with_other.tunables, "glibc.malloc.arena_max=4:glibc.malloc.hugetlb=1");
  EXPECT_EQ(with_other.huge_advised, 1);
}

TEST(RestartWithHugePages, TheExaminerCanTurnItOff) {
  if (const std::string why = cannot_restart(); !why.empty()) GTEST_SKIP() << why;
  const ProbeOutput off = run_probe("GLIBC_TUNABLES=glibc.malloc.hugetlb=0");
  EXPECT_EQ(off.tunables, "glibc.malloc.hugetlb=0");
  EXPECT_EQ(off.huge_advised, 0);  // nothing asked for huge pages
}

}  // namespace
}  // namespace roo
