// libFuzzer target for read_state_db. The first byte picks the Roo extension whose key is read (modulo their number,
// roo_extensions() order: core/state_vscdb_rows.cpp reads one database for each, the same code); the rest is a
// state.vscdb, optionally followed by its -wal: when a WAL header magic (0x377f0682 or 0x377f0683) starts at a multiple
// of 512 bytes, it is split there into db and wal (the corpus seeds are a selector byte, then `cat state.vscdb
// state.vscdb-wal`). Checks, beyond no crash/leak/hang, that the reader leaves its scratch directory empty after every
// input with a WAL.
#include <sqlite3.h>
#include <stdlib.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>

#include "core/catalog.h"
#include "core/state_db.h"

namespace {

// The reader writes each input's copies here and removes them: on a memory file system (/dev/shm, unless TMPDIR
// says otherwise) that costs a few system calls, not disk metadata writes (tests/fuzz/README.md).
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

}  // namespace

// SQLite's page cache takes room for 20 pages from the heap in one block whenever a database is opened, whatever it
// then reads: for a state.vscdb's 4 KiB pages an 88 KB block per input, which AddressSanitizer poisons, fills,
// quarantines and recycles. Configured with no such block, SQLite takes each page from the heap when it reads it.
// Where the pages' memory comes from, not what is read: a differential run over the committed corpus and fuzzed
// inputs gave every field of every read the same (tests/fuzz/README.md). Set before SQLite initialises (first open).
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  if (sqlite3_config(SQLITE_CONFIG_PAGECACHE, nullptr, 0, 0) != SQLITE_OK) abort();
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
  // Only a read with a WAL writes there (core/state_db.h); listing the directory after every input was a twentieth
  // of this target's time.
  std::error_code ec;
  if (wal && (!std::filesystem::is_empty(scratch_dir(), ec) || ec)) {
    std::fprintf(stderr, "scratch directory not cleaned\n");
    abort();
  }
  return 0;
}
