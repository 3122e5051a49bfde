// For huge_pages_test.cpp: starts as roo-ingest's main does (restart_with_huge_pages), then touches 32 MiB of heap
// and prints the GLIBC_TUNABLES it runs with and the anonymous huge-page memory the kernel gave it.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

#include "plugin/huge_pages.h"

int main(int, char** argv) {
  roo::restart_with_huge_pages(argv);
  const size_t size = 32u << 20;
  char* heap = static_cast<char*>(std::malloc(size));
  std::memset(heap, 1, size);
  std::ifstream rollup("/proc/self/smaps_rollup");
  long huge_kib = -1;
  for (std::string line; std::getline(rollup, line);)
    if (line.rfind("AnonHugePages:", 0) == 0) huge_kib = std::strtol(line.c_str() + 14, nullptr, 10);
  const char* tunables = std::getenv("GLIBC_TUNABLES");
  std::printf("tunables=%s\nanon_huge_kib=%ld\ntouched=%d\n", tunables ? tunables : "(unset)", huge_kib, heap[size - 1]);
  std::free(heap);
  return 0;
}
