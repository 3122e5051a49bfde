// Transparent huge pages for the heap: glibc asks the kernel for them (madvise) when started with the tunable
// glibc.malloc.hugetlb=1, which can only be given in the environment before the process starts.
//
// Why: a run over a large image touches about 70 MB of fresh heap across its processes, and in a virtual machine each
// 4 KiB first-touch fault is costly. On the benchmark image (tests/bench/run-bench.sh, 2 cores) the tunable took the
// faults from 17,900 to 6,700 and the run from 1.22-1.24 s to 1.07-1.11 s, for 3 MB more peak RSS.
#pragma once

#include <optional>
#include <string>

// The sanitizers bring their own allocator, on which glibc's tunable changes nothing: no restart there.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define ROO_SANITIZER_ALLOCATOR 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define ROO_SANITIZER_ALLOCATOR 1
#endif
#endif

namespace roo {

// The GLIBC_TUNABLES value to start again with, or nothing when there is no reason to: the kernel's THP mode (the
// text of /sys/kernel/mm/transparent_hugepage/enabled, the active mode in brackets) is not "madvise" (with "always"
// the heap has huge pages already, with "never" it cannot), or `current` (the GLIBC_TUNABLES now set, nullptr when
// unset) names glibc.malloc.hugetlb already: set by an earlier start, or by the examiner (=0 turns this off). The
// examiner's other tunables are kept.
std::optional<std::string> huge_page_tunables(const char* current, const std::string& thp_enabled);

// Starts this program again (same arguments, same file) with glibc.malloc.hugetlb=1 when huge_page_tunables says to;
// returns only when it does not or cannot, and the run goes on as it is. Not when running set-id or with file
// capabilities (glibc ignores the tunable then), nor when the file this process runs is not the program argv[0]
// names (started through ld.so or valgrind). Call first thing in main, before any thread or open file exists.
void restart_with_huge_pages(char** argv);

}  // namespace roo
