// libFuzzer target for read_state_db. The first byte picks the Roo extension whose key is read (modulo their number,
// roo_extensions() order: core/state_vscdb_rows.cpp reads one database for each, the same code); the rest is a
// state.vscdb, optionally followed by its -wal: when a WAL header magic (0x377f0682 or 0x377f0683) starts at a multiple
// of 512 bytes, it is split there into db and wal (the corpus seeds are a selector byte, then `cat state.vscdb
// state.vscdb-wal`). Checks, beyond no crash/leak/hang, that the reader leaves its scratch directory empty after every
// input with a WAL. SQLite's memory comes from SqliteMemory below, not AddressSanitizer's allocator.
#include <sanitizer/asan_interface.h>
#include <sqlite3.h>
#include <stdlib.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "core/catalog.h"
#include "core/state_db.h"

namespace {

// The scratch directory the reader is given, as the product gives it one (core/state_db.h); it writes nothing there,
// which the target checks after every input with a WAL.
const std::string& scratch_dir() {
  static const std::string dir = [] {
    const char* tmp = std::getenv("TMPDIR");
    std::error_code ec;
    const char* parent = tmp && *tmp ? tmp : std::filesystem::is_directory("/dev/shm", ec) ? "/dev/shm" : "/tmp";
    std::string templ = std::string(parent) + "/fuzz_state_db-XXXXXX";
    if (!mkdtemp(templ.data())) abort();
    static std::string for_exit = templ;
    std::atexit([] {
      std::error_code ec;
      std::filesystem::remove_all(for_exit, ec);
    });
    return templ;
  }();
  return dir;
}

bool is_wal_magic(const uint8_t* p) {
  return p[0] == 0x37 && p[1] == 0x7f && p[2] == 0x06 && (p[3] == 0x82 || p[3] == 0x83);
}

// SQLite's memory, in size classes carved from chunks this target keeps. The SQLite library (the system's, with no
// lookaside: its build says OMIT_LOOKASIDE) makes about 450 allocations a read, each of which AddressSanitizer's own
// allocator serves with its locking, quarantine, fill and malloc hooks (tests/fuzz/README.md). The checks this
// target needs on that memory are kept with AddressSanitizer's manual poisoning: the bytes SQLite asked for (rounded
// up to 8) are addressable, the rest of a block and its header are not, and a freed block stays poisoned until it is
// handed out again, first in first out, so a read of SQLite's memory by the parser beyond a value's end or after it
// was freed is still reported. Where SQLite's memory comes from, not what it reads: the product uses SQLite's
// default allocator. SQLite calls these under its memory mutex (SQLITE_CONFIG_MEMSTATUS is on by default), and the
// fuzzer runs one input at a time. Not instrumented for coverage: the allocator's branches are not the parser's.
#define ROO_FUZZ_ALLOCATOR __attribute__((no_sanitize("address", "coverage")))
class SqliteMemory {
 public:
  static const sqlite3_mem_methods* methods() {
    static const sqlite3_mem_methods m = {x_malloc, x_free, x_realloc, x_size, x_roundup, x_init, x_shutdown, nullptr};
    return &m;
  }

 private:
  static constexpr size_t kHeader = 16;  // the block's usable size, ahead of what SQLite gets (kept poisoned)
  static constexpr int kClasses = 13;    // blocks of 32 bytes to 128 KiB; larger allocations go to malloc
  static constexpr size_t kLargest = size_t{32} << (kClasses - 1);
  static constexpr size_t kChunk = 1 << 20;
  struct Block {
    Block* next;  // while free; the whole block is poisoned then
  };

  static SqliteMemory& pool() {
    static SqliteMemory* p = new SqliteMemory;  // never freed: SQLite may free after static destructors
    return *p;
  }
  ROO_FUZZ_ALLOCATOR static size_t round8(size_t n) { return (n + 7) & ~size_t{7}; }
  // The smallest class whose blocks (32 << class bytes) hold block bytes; block <= kLargest.
  ROO_FUZZ_ALLOCATOR static int class_of(size_t block) {
    return block <= 32 ? 0 : 64 - __builtin_clzll(static_cast<unsigned long long>(block - 1)) - 5;
  }
  // The header stays poisoned: only code AddressSanitizer does not check reads or writes it.
  ROO_FUZZ_ALLOCATOR static size_t& usable(void* p) { return *reinterpret_cast<size_t*>(static_cast<char*>(p) - kHeader); }

  ROO_FUZZ_ALLOCATOR void* take(size_t n) {
    const size_t want = round8(n ? n : 1);
    char* b;
    if (want + kHeader > kLargest) {
      b = static_cast<char*>(std::malloc(want + kHeader));
      if (!b) return nullptr;
      ASAN_POISON_MEMORY_REGION(b, kHeader);
    } else {
      const int c = class_of(want + kHeader);
      const size_t block = size_t{32} << c;
      if (Block* f = free_head_[c]) {
        b = reinterpret_cast<char*>(f);  // poisoned whole since it was freed
        free_head_[c] = f->next;
        if (!free_head_[c]) free_tail_[c] = nullptr;
      } else {
        if (chunk_left_ < block) {
          chunk_ = static_cast<char*>(std::malloc(kChunk));
          if (!chunk_) return nullptr;
          ASAN_POISON_MEMORY_REGION(chunk_, kChunk);
          chunk_left_ = kChunk;
        }
        b = chunk_;
        chunk_ += block, chunk_left_ -= block;
      }
    }
    void* p = b + kHeader;
    usable(p) = want;
    ASAN_UNPOISON_MEMORY_REGION(p, want);
    return p;
  }

  ROO_FUZZ_ALLOCATOR void give_back(void* p) {
    if (!p) return;
    const size_t want = usable(p);
    char* b = static_cast<char*>(p) - kHeader;
    if (want + kHeader > kLargest) {
      ASAN_UNPOISON_MEMORY_REGION(b, kHeader);
      std::free(b);
      return;
    }
    ASAN_POISON_MEMORY_REGION(p, want);
    const int c = class_of(want + kHeader);
    auto* f = reinterpret_cast<Block*>(b);
    f->next = nullptr;
    if (free_tail_[c])
      free_tail_[c]->next = f;
    else
      free_head_[c] = f;
    free_tail_[c] = f;
  }

  ROO_FUZZ_ALLOCATOR static void* x_malloc(int n) { return n < 0 ? nullptr : pool().take(static_cast<size_t>(n)); }
  ROO_FUZZ_ALLOCATOR static void x_free(void* p) { pool().give_back(p); }
  ROO_FUZZ_ALLOCATOR static void* x_realloc(void* p, int n) {
    if (n < 0) return nullptr;
    void* q = pool().take(static_cast<size_t>(n));
    if (q && p) {
      const size_t old_size = usable(p);  // read here, not in an instrumented std::min
      std::memcpy(q, p, old_size < static_cast<size_t>(n) ? old_size : static_cast<size_t>(n));
    }
    if (q) pool().give_back(p);
    return q;
  }
  ROO_FUZZ_ALLOCATOR static int x_size(void* p) { return p ? static_cast<int>(usable(p)) : 0; }
  ROO_FUZZ_ALLOCATOR static int x_roundup(int n) { return static_cast<int>(round8(static_cast<size_t>(n))); }
  static int x_init(void*) { return SQLITE_OK; }
  static void x_shutdown(void*) {}

  Block* free_head_[kClasses] = {};
  Block* free_tail_[kClasses] = {};
  char* chunk_ = nullptr;
  size_t chunk_left_ = 0;
};
}  // namespace

// SQLite's page cache takes room for 20 pages from the heap in one block whenever a database is opened, whatever it
// then reads: for a state.vscdb's 4 KiB pages an 88 KB block per input, which AddressSanitizer poisons, fills,
// quarantines and recycles. Configured with no such block, SQLite takes each page from the heap when it reads it.
// Where the pages' memory comes from, not what is read: a differential run over the committed corpus and fuzzed
// inputs gave every field of every read the same (tests/fuzz/README.md). Set before SQLite initialises (first open).
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  if (sqlite3_config(SQLITE_CONFIG_PAGECACHE, nullptr, 0, 0) != SQLITE_OK) abort();
  if (sqlite3_config(SQLITE_CONFIG_MALLOC, SqliteMemory::methods()) != SQLITE_OK) abort();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::vector<roo::RooExtension>& extensions = roo::roo_extensions();
  const roo::RooExtension& ext = extensions[data[0] % extensions.size()];
  ++data, --size;
  const char* bytes = reinterpret_cast<const char*>(data);
  std::string db(bytes, size);
  std::optional<std::string> wal;
  for (size_t off = 512; off + 4 <= size; off += 512) {
    if (is_wal_magic(data + off)) {
      db.assign(bytes, off);
      wal.emplace(bytes + off, size - off);
      break;
    }
  }
  roo::StateDbRead r = roo::read_state_db(db, wal, ext.id, scratch_dir());
  if (!r.ok && r.error.empty()) abort();
  // A secret the WAL deleted is not also a live one (each secret row reported once).
  for (const std::string& k : r.secret_keys_deleted_in_wal)
    if (std::binary_search(r.secret_keys.begin(), r.secret_keys.end(), k)) abort();
  // Nothing is written there (core/state_db.h); checked after the reads that once wrote there, those with a WAL
  // (listing the directory after every input was a twentieth of this target's time).
  std::error_code ec;
  if (wal && (!std::filesystem::is_empty(scratch_dir(), ec) || ec)) {
    std::fprintf(stderr, "scratch directory not cleaned\n");
    abort();
  }
  return 0;
}
