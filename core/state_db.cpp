#include "core/state_db.h"

#include <rapidjson/document.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iterator>
#include <memory>
#include <optional>
#include <system_error>

#include "core/json_records.h"
#include "core/text_util.h"

namespace roo {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kSecretPrefix = "secret://";
constexpr size_t kMaxErrorChars = 300;

// Whether a private directory could be made in parent. Nothing is written there (the WAL is replayed in memory,
// MemoryWalVfs below), but the contract stays that of a reader that may write there: a read fails when the caller's
// scratch directory is unusable, whatever the bytes.
bool scratch_usable(const std::string& parent, std::string* error) {
  std::error_code ec;
  const fs::path base = fs::absolute(parent, ec);
  if (ec) {
    *error = "scratch directory unusable: " + ec.message();
    return false;
  }
  struct stat st;
  int err = 0;
  if (::stat(base.c_str(), &st) != 0)
    err = errno;
  else if (!S_ISDIR(st.st_mode))
    err = ENOTDIR;
  else if (::access(base.c_str(), W_OK | X_OK) != 0)
    err = errno;
  if (err == 0) return true;
  *error = "cannot create a private directory in the scratch directory: " + std::string(std::strerror(err));
  return false;
}

// SQLite replays a WAL only through a VFS whose files it can open by name (the main file, then the same name with
// "-wal"): its memory VFS (sqlite3_deserialize) takes a main file only and opens a -wal on disk. This read-only VFS
// serves both from the caller's bytes, so a WAL read writes no file. The wal-index, which the unix VFS keeps in a
// -shm file beside the copy, is kept on the heap: SQLite does so when the connection is in exclusive locking mode
// before its first read (sqlite/sqlite, tag version-3.40.1: src/pager.c sqlite3PagerWalSupported and pagerOpenWal,
// src/wal.c WAL_HEAPMEMORY_MODE). Everything else is what the unix VFS gives a read-only copy: a file that cannot be
// written, reads past its end zero-filled with SQLITE_IOERR_SHORT_READ, a 1-byte file taken for an empty one
// (src/os_unix.c unixFileSize), no hot journal (no -journal exists), a -wal removed when SQLite deletes it (it does
// for a main file of no pages, src/pager.c pagerOpenWalIfPresent). Time, randomness and sleep are the default VFS's.
// Checked against the scratch-file reader it replaced: the same result, field by field, for 4,134 inputs
// (tests/fuzz/README.md, fifth round).
class MemoryWalVfs {
 public:
  // The bytes SQLite reads under name (main file) and name + "-wal", while this object lives.
  class Files {
   public:
    Files(const std::string& db, const std::string& wal) : name_(next_name()) {
      std::lock_guard<std::mutex> lock(instance().mutex_);
      instance().files_[name_] = {&db, &wal};
    }
    ~Files() {
      std::lock_guard<std::mutex> lock(instance().mutex_);
      instance().files_.erase(name_);
    }
    Files(const Files&) = delete;
    Files& operator=(const Files&) = delete;
    const std::string& name() const { return name_; }

   private:
    static std::string next_name() {
      static std::atomic<uint64_t> counter{0};
      return "/roo-state-db/" + std::to_string(counter.fetch_add(1)) + "/state.vscdb";
    }
    std::string name_;
  };

  static const char* name() { return kName; }
  // Registers the VFS on first use; false when SQLite refused it.
  static bool registered() { return instance().registered_; }

 private:
  static constexpr const char* kName = "roo-memory-wal";
  struct Entry {
    const std::string* db;
    const std::string* wal;  // null once SQLite deleted it
  };
  struct File {
    sqlite3_file base;
    const std::string* bytes;
  };

  MemoryWalVfs() {
    sqlite3_vfs* fallback = sqlite3_vfs_find(nullptr);
    vfs_.iVersion = 1;
    vfs_.szOsFile = sizeof(File);
    vfs_.mxPathname = 512;
    vfs_.zName = kName;
    vfs_.pAppData = fallback;
    vfs_.xOpen = x_open;
    vfs_.xDelete = x_delete;
    vfs_.xAccess = x_access;
    vfs_.xFullPathname = x_full_pathname;
    vfs_.xDlOpen = [](sqlite3_vfs* v, const char* n) { return base(v)->xDlOpen(base(v), n); };
    vfs_.xDlError = [](sqlite3_vfs* v, int n, char* m) { base(v)->xDlError(base(v), n, m); };
    vfs_.xDlSym = [](sqlite3_vfs* v, void* h, const char* s) { return base(v)->xDlSym(base(v), h, s); };
    vfs_.xDlClose = [](sqlite3_vfs* v, void* h) { base(v)->xDlClose(base(v), h); };
    vfs_.xRandomness = [](sqlite3_vfs* v, int n, char* out) { return base(v)->xRandomness(base(v), n, out); };
    vfs_.xSleep = [](sqlite3_vfs* v, int us) { return base(v)->xSleep(base(v), us); };
    vfs_.xCurrentTime = [](sqlite3_vfs* v, double* t) { return base(v)->xCurrentTime(base(v), t); };
    vfs_.xGetLastError = [](sqlite3_vfs*, int, char*) { return 0; };
    io_.iVersion = 1;
    io_.xClose = [](sqlite3_file*) { return SQLITE_OK; };
    io_.xRead = x_read;
    io_.xWrite = [](sqlite3_file*, const void*, int, sqlite3_int64) { return SQLITE_IOERR_WRITE; };
    io_.xTruncate = [](sqlite3_file*, sqlite3_int64) { return SQLITE_IOERR_TRUNCATE; };
    io_.xSync = [](sqlite3_file*, int) { return SQLITE_OK; };
    io_.xFileSize = [](sqlite3_file* f, sqlite3_int64* size) {
      const size_t n = reinterpret_cast<File*>(f)->bytes->size();
      *size = n == 1 ? 0 : static_cast<sqlite3_int64>(n);
      return SQLITE_OK;
    };
    io_.xLock = [](sqlite3_file*, int) { return SQLITE_OK; };
    io_.xUnlock = [](sqlite3_file*, int) { return SQLITE_OK; };
    io_.xCheckReservedLock = [](sqlite3_file*, int* out) {
      *out = 0;
      return SQLITE_OK;
    };
    io_.xFileControl = [](sqlite3_file*, int, void*) { return SQLITE_NOTFOUND; };
    io_.xSectorSize = [](sqlite3_file*) { return 4096; };  // the unix VFS's default sector
    io_.xDeviceCharacteristics = [](sqlite3_file*) { return SQLITE_IOCAP_POWERSAFE_OVERWRITE; };  // ditto
    if (!fallback || sqlite3_vfs_register(&vfs_, 0) != SQLITE_OK) registered_ = false;
  }
  // Never destroyed: SQLite keeps a pointer to the registered VFS until the process ends.
  static MemoryWalVfs& instance() {
    static MemoryWalVfs* vfs = new MemoryWalVfs;
    return *vfs;
  }
  static sqlite3_vfs* base(sqlite3_vfs* v) { return static_cast<sqlite3_vfs*>(v->pAppData); }

  // The entry a main-file or -wal name belongs to; the caller holds mutex_.
  Entry* find(std::string_view name, bool* is_wal) {
    *is_wal = name.size() > 4 && name.substr(name.size() - 4) == "-wal";
    if (*is_wal) name.remove_suffix(4);
    auto it = files_.find(std::string(name));
    return it == files_.end() ? nullptr : &it->second;
  }

  static int x_open(sqlite3_vfs*, const char* name, sqlite3_file* f, int flags, int* out_flags) {
    f->pMethods = nullptr;
    if (!name || !(flags & (SQLITE_OPEN_MAIN_DB | SQLITE_OPEN_WAL))) return SQLITE_CANTOPEN;
    MemoryWalVfs& self = instance();
    std::lock_guard<std::mutex> lock(self.mutex_);
    bool is_wal = false;
    Entry* e = self.find(name, &is_wal);
    if (!e || is_wal != ((flags & SQLITE_OPEN_WAL) != 0)) return SQLITE_CANTOPEN;
    const std::string* bytes = is_wal ? e->wal : e->db;
    if (!bytes) return SQLITE_CANTOPEN;
    auto* file = reinterpret_cast<File*>(f);
    file->bytes = bytes;
    f->pMethods = &self.io_;
    if (out_flags) *out_flags = (flags & ~(SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)) | SQLITE_OPEN_READONLY;
    return SQLITE_OK;
  }
  static int x_delete(sqlite3_vfs*, const char* name, int) {
    MemoryWalVfs& self = instance();
    std::lock_guard<std::mutex> lock(self.mutex_);
    bool is_wal = false;
    Entry* e = self.find(name, &is_wal);
    if (!e || !is_wal || !e->wal) return SQLITE_IOERR_DELETE_NOENT;
    e->wal = nullptr;
    return SQLITE_OK;
  }
  static int x_access(sqlite3_vfs*, const char* name, int, int* out) {
    MemoryWalVfs& self = instance();
    std::lock_guard<std::mutex> lock(self.mutex_);
    bool is_wal = false;
    Entry* e = self.find(name, &is_wal);
    *out = e && (is_wal ? e->wal != nullptr : true);
    return SQLITE_OK;
  }
  static int x_full_pathname(sqlite3_vfs*, const char* name, int n, char* out) {
    if (static_cast<int>(std::strlen(name)) >= n) return SQLITE_CANTOPEN;
    std::strcpy(out, name);
    return SQLITE_OK;
  }
  static int x_read(sqlite3_file* f, void* out, int amount, sqlite3_int64 offset) {
    const std::string& bytes = *reinterpret_cast<File*>(f)->bytes;
    const size_t size = bytes.size() == 1 ? 0 : bytes.size();
    const size_t off = static_cast<size_t>(offset);
    const size_t want = static_cast<size_t>(amount);
    const size_t got = off < size ? std::min(want, size - off) : 0;
    if (got) std::memcpy(out, bytes.data() + off, got);
    if (got == want) return SQLITE_OK;
    std::memset(static_cast<char*>(out) + got, 0, want - got);
    return SQLITE_IOERR_SHORT_READ;
  }

  sqlite3_vfs vfs_{};
  sqlite3_io_methods io_{};
  bool registered_ = true;
  std::mutex mutex_;
  std::map<std::string, Entry, std::less<>> files_;
};

// SQLite's messages describe the failure (and, for a malformed schema, name the schema object); they never hold a
// row's value. Still bounded and made valid UTF-8, since schema names come from the evidence.
std::string sqlite_message(sqlite3* db, int rc) {
  std::string m = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
  if (m.size() > kMaxErrorChars) m = m.substr(0, kMaxErrorChars) + "…";
  return utf8_sanitize(m);
}

struct CloseDb {
  void operator()(sqlite3* db) const { sqlite3_close_v2(db); }
};
struct FinalizeStmt {
  void operator()(sqlite3_stmt* s) const { sqlite3_finalize(s); }
};
using DbHandle = std::unique_ptr<sqlite3, CloseDb>;
using StmtHandle = std::unique_ptr<sqlite3_stmt, FinalizeStmt>;

// The progress handler runs every kProgressOps virtual-machine operations; past the budget it interrupts the
// statement (SQLITE_INTERRUPT), so a hostile file cannot make a query run for ever.
constexpr int kProgressOps = 1000;
struct Budget {
  uint64_t ticks = 0;
  bool exceeded = false;
};
int on_progress(void* arg) {
  auto* b = static_cast<Budget*>(arg);
  if (++b->ticks * kProgressOps > kStateDbMaxVmSteps) {
    b->exceeded = true;
    return 1;
  }
  return 0;
}

// What one view of the database holds.
struct Snapshot {
  std::vector<StateDbRow> ext_rows;  // every row whose key equals the extension key case-insensitively
  std::vector<std::string> keys;     // every key, when asked for
};

// Hardening for a hostile file: no trust in schema-defined functions, no writes to the schema even by accident, no
// triggers or views, no attached databases, bounded value sizes, no waiting on locks, cell checks on. All of it is
// the connection's, whatever database it reads; mmap_size too, since a database opened later (a deserialized image)
// takes the connection's value.
constexpr const char* kHardeningPragmas = "PRAGMA trusted_schema=OFF; PRAGMA cell_size_check=ON; PRAGMA mmap_size=0;";
void harden(sqlite3* db) {
  sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, nullptr);
  sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, nullptr);
  sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, nullptr);
#ifdef SQLITE_DBCONFIG_ENABLE_VIEW
  sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_VIEW, 0, nullptr);
#endif
  sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, nullptr);
  sqlite3_limit(db, SQLITE_LIMIT_LENGTH, kStateDbMaxValueBytes);
  sqlite3_limit(db, SQLITE_LIMIT_ATTACHED, 0);
  sqlite3_busy_timeout(db, 0);
}

// The connection in-memory reads use, one per thread, opened and hardened once and kept: opening, configuring and
// closing a connection per read was a fifth of reading a small database (tests/fuzz/README.md). Each read puts its
// image in as the main database and, when done, an empty one in its place, so between reads the connection holds no
// pointer to the caller's bytes; a connection that cannot be emptied is closed. Null until first used, or after a
// failure (the next read opens a new one).
DbHandle& memory_connection() {
  thread_local DbHandle db;
  return db;
}

class Reader {
 public:
  // path: the name MemoryWalVfs serves the main file and its -wal under; or, with image, the main file's bytes
  // read alone in memory (path unused).
  Reader(std::string path, Budget& budget, const std::string* image = nullptr)
      : path_(std::move(path)), image_(image), budget_(budget) {}
  ~Reader() {
    if (holds_image_) let_go_of_image();
  }
  Reader(const Reader&) = delete;
  Reader& operator=(const Reader&) = delete;

  // Opens the database and reads it. Returns false with *error set.
  bool read(std::string_view extension_key, bool want_keys, Snapshot* out, std::string* error) {
    if (!(image_ ? open_image(error) : open(error))) return false;
    if (!check_table(error)) return false;
    if (!read_extension_rows(extension_key, out, error)) return false;
    if (want_keys && !read_keys(out, error)) return false;
    return true;
  }

 private:
  bool open(std::string* error) {
    // Read-only, on the bytes MemoryWalVfs serves under path_. Exclusive locking mode is set before anything is
    // read, so SQLite keeps the wal-index on the heap (that VFS has no shared memory). The bytes are never written:
    // no checkpoint (SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE), no journal rollback, and the VFS refuses writes.
    if (!MemoryWalVfs::registered()) {
      *error = "cannot open the database: the in-memory VFS could not be registered";
      return false;
    }
    sqlite3* raw = nullptr;
    int rc = sqlite3_open_v2(path_.c_str(), &raw, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, MemoryWalVfs::name());
    owned_.reset(raw);
    db_ = raw;
    if (rc != SQLITE_OK) {
      *error = "cannot open the database: " + sqlite_message(raw, rc);
      return false;
    }
    harden(db_);
    sqlite3_progress_handler(db_, kProgressOps, on_progress, &budget_);
    rc = sqlite3_exec(db_, "PRAGMA locking_mode=EXCLUSIVE;", nullptr, nullptr, nullptr);
    if (rc == SQLITE_OK) rc = sqlite3_exec(db_, kHardeningPragmas, nullptr, nullptr, nullptr);
    if (rc != SQLITE_OK) {
      *error = fail("cannot configure the database", rc);
      return false;
    }
    return true;
  }

  // The main file's image as the main database of the thread's memory connection (memory_connection()).
  bool open_image(std::string* error) {
    DbHandle& conn = memory_connection();
    int rc = SQLITE_OK;
    if (!conn) {
      sqlite3* raw = nullptr;
      rc = sqlite3_open_v2(":memory:", &raw, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nullptr);
      conn.reset(raw);
      if (rc == SQLITE_OK) {
        harden(raw);
        rc = sqlite3_exec(raw, kHardeningPragmas, nullptr, nullptr, nullptr);
        if (rc != SQLITE_OK) {
          db_ = raw;
          *error = fail("cannot configure the database", rc);
          conn.reset();
          db_ = nullptr;
          return false;
        }
      } else {
        *error = "cannot open the database: " + sqlite_message(raw, rc);
        conn.reset();
        return false;
      }
    }
    db_ = conn.get();
    rc = deserialize();
    holds_image_ = true;  // whether or not it took: what the connection holds is emptied after
    if (rc != SQLITE_OK) {
      *error = "cannot open the database: " + sqlite_message(db_, rc);
      return false;
    }
    // No per-image "PRAGMA mmap_size=0": SQLite gives every database it opens the connection's setting, made when
    // the connection was opened (sqlite/sqlite, tag version-3.40.1, src/btree.c sqlite3BtreeOpen:
    // sqlite3PagerSetMmapLimit with db->szMmap); it was one more statement compiled and run for each read.
    sqlite3_progress_handler(db_, kProgressOps, on_progress, &budget_);
    return true;
  }

  // The main file's bytes as the connection's database, read-only, in SQLite's memory VFS, which reads them where
  // they are (it never writes or frees a read-only image). What is read is what the copy on disk gives: that VFS has
  // no WAL, so a file whose header says WAL mode (byte 19 = 2) is given as a copy in rollback mode (1), and with no
  // -wal beside it SQLite reads such a file's pages from the file alone too; and the unix VFS takes a 1-byte file for
  // an empty one (it writes that byte itself to new files), so 1 byte is given as none.
  int deserialize() {
    const std::string* image = image_;
    if (image->size() > 19 && (*image)[19] == 2) {
      wal_mode_copy_ = *image;
      wal_mode_copy_[19] = 1;
      image = &wal_mode_copy_;
    }
    auto* bytes = reinterpret_cast<unsigned char*>(const_cast<char*>(image->data()));
    const auto n = static_cast<sqlite3_int64>(image->size() == 1 ? 0 : image->size());
    return sqlite3_deserialize(db_, "main", bytes, n, n, SQLITE_DESERIALIZE_READONLY);
  }

  // An empty main database in place of the image (the statements are finalized by now), or no connection.
  void let_go_of_image() {
    sqlite3_progress_handler(db_, 0, nullptr, nullptr);
    static unsigned char none = 0;
    if (sqlite3_deserialize(db_, "main", &none, 0, 0, SQLITE_DESERIALIZE_READONLY) != SQLITE_OK)
      memory_connection().reset();
  }

  std::string fail(const char* what, int rc) const {
    if (budget_.exceeded)
      return std::string(what) + ": work limit exceeded (" + std::to_string(kStateDbMaxVmSteps) +
             " SQLite operations)";
    return std::string(what) + ": " + sqlite_message(db_, rc);
  }

  bool prepare(const char* sql, StmtHandle* stmt, const char* what, std::string* error) {
    sqlite3_stmt* raw = nullptr;
    int rc = sqlite3_prepare_v2(db_, sql, -1, &raw, nullptr);
    stmt->reset(raw);
    if (rc != SQLITE_OK || !raw) {
      *error = fail(what, rc);
      return false;
    }
    return true;
  }

  // ItemTable must be an ordinary table (rootpage > 0): not a view, not a virtual table.
  bool check_table(std::string* error) {
    StmtHandle st;
    if (!prepare("SELECT type, rootpage FROM sqlite_schema WHERE name = 'ItemTable' COLLATE NOCASE", &st,
                 "cannot read the schema", error))
      return false;
    bool found = false;
    int rc;
    while ((rc = sqlite3_step(st.get())) == SQLITE_ROW) {
      const unsigned char* type = sqlite3_column_text(st.get(), 0);
      if (type && std::strcmp(reinterpret_cast<const char*>(type), "table") == 0 &&
          sqlite3_column_int64(st.get(), 1) > 0)
        found = true;
      else if (type) {
        *error = "ItemTable is not an ordinary table";
        return false;
      }
    }
    if (rc != SQLITE_DONE) {
      *error = fail("cannot read the schema", rc);
      return false;
    }
    if (!found) {
      *error = "no ItemTable";
      return false;
    }
    return true;
  }

  bool read_extension_rows(std::string_view extension_key, Snapshot* out, std::string* error) {
    StmtHandle st;
    if (!prepare("SELECT key, value FROM ItemTable WHERE key = ?1 COLLATE NOCASE", &st, "cannot read ItemTable",
                 error))
      return false;
    sqlite3_bind_text(st.get(), 1, extension_key.data(), static_cast<int>(extension_key.size()), SQLITE_TRANSIENT);
    int rc;
    while ((rc = sqlite3_step(st.get())) == SQLITE_ROW) {
      StateDbRow row;
      if (!column_text(st.get(), 0, &row.key)) return nomem(error);
      switch (sqlite3_column_type(st.get(), 1)) {
        case SQLITE_NULL:
          row.value_is_null = true;
          break;
        case SQLITE_BLOB: {
          const void* b = sqlite3_column_blob(st.get(), 1);
          int n = sqlite3_column_bytes(st.get(), 1);
          if (!b && n > 0) return nomem(error);
          if (n > 0) row.value.assign(static_cast<const char*>(b), static_cast<size_t>(n));
          break;
        }
        default:  // TEXT (UTF-8 whatever the database's encoding), or a number as its text
          if (!column_text(st.get(), 1, &row.value)) return nomem(error);
      }
      out->ext_rows.push_back(std::move(row));
    }
    if (rc != SQLITE_DONE) {
      *error = fail("cannot read ItemTable", rc);
      return false;
    }
    return true;
  }

  bool read_keys(Snapshot* out, std::string* error) {
    StmtHandle st;
    if (!prepare("SELECT key FROM ItemTable WHERE key IS NOT NULL", &st, "cannot read ItemTable keys", error))
      return false;
    int rc;
    while ((rc = sqlite3_step(st.get())) == SQLITE_ROW) {
      std::string key;
      if (!column_text(st.get(), 0, &key)) return nomem(error);
      out->keys.push_back(std::move(key));
    }
    if (rc != SQLITE_DONE) {
      *error = fail("cannot read ItemTable keys", rc);
      return false;
    }
    return true;
  }

  static bool column_text(sqlite3_stmt* st, int col, std::string* out) {
    const unsigned char* t = sqlite3_column_text(st, col);
    int n = sqlite3_column_bytes(st, col);
    if (!t) {
      out->clear();
      return sqlite3_column_type(st, col) == SQLITE_NULL || n == 0;
    }
    out->assign(reinterpret_cast<const char*>(t), static_cast<size_t>(n));
    return true;
  }

  bool nomem(std::string* error) const {
    *error = "cannot read ItemTable: out of memory";
    return false;
  }

  std::string path_;
  const std::string* image_;
  std::string wal_mode_copy_;  // the image in WAL mode given in rollback mode; outlives its reading (~Reader)
  Budget& budget_;
  // The connection reading: owned_ (a copy on disk), or the thread's memory connection. Statements are locals of
  // the methods, finalized before the connection closes or lets go of its image.
  sqlite3* db_ = nullptr;
  DbHandle owned_;
  bool holds_image_ = false;
};

// Reads the bytes: the main file alone as an image in memory, or with its WAL through MemoryWalVfs (SQLite
// replays a WAL only from named files). Nothing is written anywhere.
bool read_database(const std::string& db, const std::string* wal, std::string_view extension_key, bool want_keys,
                   Snapshot* out, std::string* error) {
  Budget budget;
  if (!wal) {
    Reader reader({}, budget, &db);
    return reader.read(extension_key, want_keys, out, error);
  }
  MemoryWalVfs::Files files(db, *wal);  // outlives the reader's connection
  Reader reader(files.name(), budget);
  return reader.read(extension_key, want_keys, out, error);
}

// Picks the exact-case key, else the smallest key in byte order. Returns the index, or -1 when there is no row.
int choose_row(const std::vector<StateDbRow>& rows, std::string_view extension_key) {
  int best = -1;
  for (size_t i = 0; i < rows.size(); ++i) {
    if (rows[i].key == extension_key) return static_cast<int>(i);
    if (best < 0 || rows[i].key < rows[static_cast<size_t>(best)].key) best = static_cast<int>(i);
  }
  return best;
}

bool istarts_with(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && iequals(s.substr(0, prefix.size()), prefix);
}

// The "key" of a secret:// row of this extension: secret://{"extensionId":"<id>","key":"<key>"}.
std::optional<std::string> secret_key_of(std::string_view key, std::string_view extension_key) {
  if (!starts_with(key, kSecretPrefix)) return std::nullopt;
  std::string_view json = key.substr(kSecretPrefix.size());
  // A key's DOM is a few hundred bytes: built here, not in the 64 KiB first chunk a Document of its own takes from
  // the heap (RapidJSON's default); a longer one takes chunks from the heap beyond this buffer.
  alignas(8) char buffer[2048];
  rapidjson::MemoryPoolAllocator<> pool(buffer, sizeof buffer);
  rapidjson::Document doc(&pool);
  if (!parse_json(json.data(), json.size(), doc, nullptr) || !doc.IsObject()) return std::nullopt;
  auto ext = get_string(doc, "extensionId");
  if (!ext || !iequals(*ext, extension_key)) return std::nullopt;
  return get_string(doc, "key");
}

void sort_unique(std::vector<std::string>& v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
}

void fill_from(const Snapshot& snap, std::string_view extension_key, StateDbRead* out) {
  std::vector<StateDbRow> rows = snap.ext_rows;
  int chosen = choose_row(rows, extension_key);
  if (chosen >= 0) {
    for (size_t i = 0; i < rows.size(); ++i)
      if (static_cast<int>(i) != chosen) out->extension_key_variants.push_back(rows[i].key);
    out->extension_row = std::move(rows[static_cast<size_t>(chosen)]);
  }
  sort_unique(out->extension_key_variants);
  const std::string dot = std::string(extension_key) + ".";
  const std::string slash = std::string(extension_key) + "/";
  for (const std::string& key : snap.keys) {
    if (auto secret = secret_key_of(key, extension_key))
      out->secret_keys.push_back(*secret);
    else if (istarts_with(key, dot) || istarts_with(key, slash))
      out->other_extension_keys.push_back(key);
  }
  sort_unique(out->secret_keys);
  sort_unique(out->other_extension_keys);
}

bool same_row(const std::optional<StateDbRow>& a, const std::optional<StateDbRow>& b) {
  if (a.has_value() != b.has_value()) return false;
  if (!a) return true;
  return a->key == b->key && a->value == b->value && a->value_is_null == b->value_is_null;
}

}  // namespace

StateDbRead read_state_db(const std::string& db, const std::optional<std::string>& wal, std::string_view extension_key,
                          const std::string& scratch_dir) {
  StateDbRead out;
  out.wal_present = wal.has_value();
  std::string error;
  if (!scratch_usable(scratch_dir, &error)) {
    out.error = error;
    return out;
  }
  // The database as SQLite would see it on the live system: the main file with its WAL applied.
  Snapshot full;
  if (!read_database(db, wal ? &*wal : nullptr, extension_key, true, &full, &error)) {
    if (!wal) {
      out.error = error;
      return out;
    }
    // The WAL view failed: fall back to the main file alone, and say so.
    Snapshot main_only;
    std::string main_error;
    if (!read_database(db, nullptr, extension_key, true, &main_only, &main_error)) {
      out.error = error;
      return out;
    }
    fill_from(main_only, extension_key, &out);
    out.wal_error = error;
    out.ok = true;
    return out;
  }
  fill_from(full, extension_key, &out);
  out.ok = true;
  if (!wal) return out;

  // Which value came from the WAL: read the main file alone and compare the extension row.
  Snapshot main_only;
  std::string main_error;
  std::optional<StateDbRow> main_row;
  const bool main_ok = read_database(db, nullptr, extension_key, true, &main_only, &main_error);
  if (main_ok) {
    int chosen = choose_row(main_only.ext_rows, extension_key);
    if (chosen >= 0) main_row = std::move(main_only.ext_rows[static_cast<size_t>(chosen)]);
    // A secret the WAL deleted is still evidence: its row is in the main file (nothing is lost).
    StateDbRead main_read;
    fill_from(main_only, extension_key, &main_read);
    std::set_difference(main_read.secret_keys.begin(), main_read.secret_keys.end(), out.secret_keys.begin(),
                        out.secret_keys.end(), std::back_inserter(out.secret_keys_deleted_in_wal));
  }
  if (out.extension_row) {
    out.extension_row_from_wal = !main_ok || !same_row(out.extension_row, main_row);
  } else {
    out.extension_row_deleted_in_wal = main_ok && main_row.has_value();
  }
  if (out.extension_row_from_wal || out.extension_row_deleted_in_wal) out.extension_row_main_file = std::move(main_row);
  return out;
}

}  // namespace roo
