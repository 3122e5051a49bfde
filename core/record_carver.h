// Carving Roo records out of bytes no file owns (--deep; docs/row-contract.md "Carved records"): unallocated blocks,
// the slack of Roo files, unpartitioned space. safeWriteJson writes every save as a new file (docs/roo-format.md
// §2.2), so the blocks of older versions of ui_messages.json, api_conversation_history.json, history_item.json and
// _index.json are freed and survive there until reused.
//
// Two parts, both without libtsk:
// - Carver finds whole JSON values that open like a Roo record in consecutive byte runs fed to it in pieces
//   (a value may straddle two pieces of the same run). It looks for '{' with memchr (memory bandwidth), checks the
//   first key, frames the value with a string-aware bracket matcher that gives up at the first byte JSON cannot
//   hold, then parses it and classifies it by its shape.
// - CarvedRecordEmitter turns the values, fed in image-offset order, into rows through the parsers the live files
//   use, so row texts are the same as for a live record. Records identical to ones the normal scan read are folded
//   (counted, no row); consecutive records of one array are read together and attributed to one task.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/evidence.h"
#include "core/row.h"
#include "core/sha256.h"

namespace roo {

// What a carved value is, by its shape (docs/roo-format.md §2.3, §3.1, §5, §2.9, §6, §7.2).
enum class CarvedKind { ui_message, api_message, history_item, task_index, cli_history, retry_request };
const char* carved_kind_name(CarvedKind k);
inline constexpr int kCarvedKinds = 6;

// One JSON value found in carved bytes.
struct CarvedValue {
  uint64_t offset = 0;  // image byte offset of its first byte
  uint64_t length = 0;  // its byte length
  // its exact bytes (emptied by a carving thread when no row can need them, see plugin/image_carving.cpp)
  std::string text;
  CarvedKind kind = CarvedKind::ui_message;
  int region = 0;       // CarveRegion index (where the bytes lie); set by the caller of Carver
  // The bytes just before it in the same run (at most kCarveLookbehind): says whether it opens an array ('[') or
  // follows another record of the same array (',' right after that record's end).
  std::string before;
  std::string sha256;   // of text, when the finder already computed it (a carving thread; folding looks it up)
  // Set by a carving thread that looked the record up in the KnownRecords (sealed, read-only): the task of the known
  // record it is identical to ("" for none), or null when it is not known. Else the emitter looks it up.
  bool looked_up = false;
  const std::string* known_task = nullptr;
  uint64_t end() const { return offset + length; }
};

inline constexpr size_t kCarveLookbehind = 32;
// A value larger than this is given up on (memory stays under a 128 MiB peak whatever the input). Roo records
// with pasted images can be a few MB; whole arrays are not extracted as one value (their records are).
inline constexpr size_t kMaxCarvedValue = 16u << 20;

// Finds Roo values in one contiguous run at a time. Not thread-safe; one per worker.
class Carver {
 public:
  using Found = std::function<void(CarvedValue&&)>;
  // nested: also look inside every value found, and give every framed value without classifying it (used to list
  // the records of a known file, for folding); carving itself goes on after a value's end, so a record is found
  // once, as the largest value that holds it.
  explicit Carver(Found found, bool nested = false, size_t max_value = kMaxCarvedValue);

  // Starts a run at image offset `offset`; `before` holds the bytes just before it in the same run (context only).
  void begin_run(uint64_t offset, std::string_view before = {});
  // Values starting at or past this offset are not looked for (a work unit's end); bytes past it still complete a
  // value that started before it. Default: no limit.
  void set_scan_end(uint64_t offset) { scan_end_ = offset; }
  // The next bytes of the run, in order. A read may cut the run anywhere.
  void feed(const char* data, size_t len);
  // Whether a value that started before the scan end is still open (the caller should feed more of the run).
  bool wants_more() const { return !pending_.empty(); }
  // The run ended: an open value is cut and given up on (its inner records are still looked for).
  void end_run();

 private:
  size_t scan(const char* p, size_t n, uint64_t base, bool final);
  void keep_history(const char* p, size_t n);

  Found found_;
  bool nested_;
  size_t max_value_;
  uint64_t scan_end_ = UINT64_MAX;
  std::string pending_;      // unconsumed bytes (an open value or an unchecked '{'), from pending_off_
  uint64_t pending_off_ = 0;
  uint64_t next_off_ = 0;    // image offset of the next byte fed
  std::string history_;      // up to kCarveLookbehind bytes before the unconsumed ones
};

// Classifies a value; nothing when it is not a Roo record (or not JSON text at all). Its JSON check agrees with
// parse_json on text without NUL bytes (tests/fuzz/fuzz_carve.cpp checks it), without building anything.
std::optional<CarvedKind> classify_carved(std::string_view text);

// Every record value of a known Roo file, as the Carver frames them (nested), for folding and attribution.
void for_each_record_value(std::string_view bytes, const std::function<void(std::string_view)>& f);

// What the normal scan of a file system read: carved records identical to one of these are folded, and the task
// a known record belongs to attributes its carved neighbours. Kept as sorted 32-byte digests (a large image's files
// hold hundreds of thousands of records: memory stays small, under a 128 MiB peak).
// Where a known record's rows are: the file (the caller's number for it) and the record_index its rows carry
// (kWholeFile: a HistoryItem file's one document, whose rows have none; kNoPlace: not known, e.g. a nested value).
struct KnownRecordPlace {
  static constexpr int32_t kWholeFile = -1, kNoPlace = -2;
  uint32_t file = 0;
  int32_t record_index = kNoPlace;  // 32 bits: there is a Place per known record (memory), and a record index past
                                    // 2^31 is no place (no file holds that many)
};

class KnownRecords {
 public:
  using Digest = Sha256Digest;
  static Digest digest_of(std::string_view sha256_hex);
  using Place = KnownRecordPlace;
  static constexpr int32_t kWholeFile = Place::kWholeFile, kNoPlace = Place::kNoPlace;
  // A record of a file of `task` ("" for none). When several files hold the same record, the first added keeps it.
  void add(const Digest& record, const std::string& task, Place place = {});
  // Adds every record of a known file's bytes, belonging to `identity` (which may have no session id).
  void add_file(std::string_view bytes, const TaskIdentity* identity);
  void seal();  // after the last add, before any lookup
  // The task of a known record ("" when none), or nullptr when the record is not known.
  const std::string* task_of(const std::string& sha256_hex) const;
  const std::string* task_of(const Digest& record) const;
  bool known(const std::string& sha256_hex) const { return task_of(sha256_hex) != nullptr; }
  // Where the known record's rows are; nothing when it is not known.
  std::optional<Place> place_of(const std::string& sha256_hex) const;

  std::map<std::string, TaskIdentity> identities;  // task id → the identity its live rows carry

 private:
  struct Entry {
    Digest digest;
    uint32_t task;
    Place place;
  };
  const Entry* find(const Digest& record) const;
  std::vector<Entry> entries_;
  std::vector<std::string> tasks_;
  std::map<std::string, uint32_t> task_numbers_;
};

// Where carved bytes lie: the source every row of a carved record names.
struct CarveRegion {
  VolumeInfo volume;
  FileMeta file;  // "$Unallocated", "$Unpartitioned", or the Roo file whose slack it is (recovery slack)
  std::optional<uint64_t> fs_offset;  // image offset of the file system; blocks count from it
  uint32_t block_size = 0;            // 0: no file-system blocks (unpartitioned space)
};

// The record places of a known file's values as Carver (nested) gives them, in order: the record_index a value's rows
// carry in the scan's output (KnownRecords::Place), so a carved copy of it can be named in those rows' also_in.
// An array file's top-level records are numbered while they follow one another (only whitespace and one ','
// between them); a lone top-level object (history_item.json) is kWholeFile; anything else kNoPlace.
class RecordPlaces {
 public:
  int64_t next(const CarvedValue& v);

 private:
  uint64_t open_end_ = 0;      // end of the top-level value the next ones lie inside (nested)
  uint64_t last_top_end_ = 0;  // end of the last top-level value
  int64_t count_ = 0;          // top-level values seen
  bool numbered_ = true;       // every top-level value so far followed the previous one as an array element
};

// A carved record folded into a record the scan read (one fact, both sources listed): where its bytes are,
// for the also_in of the rows of that record. Collected in image-offset order.
struct CarvedFold {
  KnownRecords::Place place;  // the known record (the caller's file number, record_index)
  uint64_t offset = 0, length = 0;  // the carved bytes (image)
  int region = 0;                   // the CarveRegion they lie in (carved_copy_json names it); kept small: a disk
                                    // with many old saves in its free blocks gives a fold per record of each
};
// The also_in entry naming a carved copy: {path, inode, recovery, record_index: null, byte_offset, byte_length,
// blocks} (blocks only when the region has file-system blocks).
std::string carved_copy_json(const CarveRegion& region, uint64_t offset, uint64_t length);

// Counts for report.json (per partition, "carving").
struct CarveStats {
  uint64_t bytes_carved = 0;
  uint64_t unallocated_bytes = 0, slack_bytes = 0, unpartitioned_bytes = 0;
  // Whose unallocated blocks unallocated_bytes are: "file system", "apfs container" (its free blocks, carved by the
  // job of its first volume that is not encrypted), or "none" (another volume's job carves them; no file system).
  std::string unallocated_of = "none";
  // Rows the carving wrote, by where their bytes lie, so the summary can say what each area gave.
  int64_t unallocated_rows = 0, slack_rows = 0;
  struct Area {
    uint64_t offset = 0, length = 0;  // image bytes
    int64_t rows = 0;
  };
  std::vector<Area> unpartitioned_areas;  // the volume system's gaps carved, in image order
  int64_t found[kCarvedKinds] = {};
  int64_t folded[kCarvedKinds] = {};
  int64_t kept[kCarvedKinds] = {};
  int64_t unattributed = 0;  // kept records no task could be given to
  double seconds = 0;
  // Of `seconds`, the time spent listing the digests of the records the scan read (what carving folds against): it
  // grows with the live Roo files, not with the space carved, so the benchmark reports it apart.
  double known_records_seconds = 0;
  std::vector<std::string> errors;  // what could not be read (an image that would not open again, a block walk)
  std::string to_json() const;
};

inline constexpr size_t kMaxGroupBytes = 8u << 20;

// Whether b is the next record of a's array (only whitespace and one ',' between them): such records are read together.
bool continues_array(const CarvedValue& a, const CarvedValue& b);

// Turns carved values (fed in ascending image offset, each at most once) into rows. Values that lie inside a value
// already taken are dropped (a work unit that started inside a record finds its inner records again).
class CarvedRecordEmitter {
 public:
  CarvedRecordEmitter(const KnownRecords& known, const std::vector<CarveRegion>& regions, RowSink& sink,
                      CarveStats& stats, bool native);
  ~CarvedRecordEmitter();
  void add(CarvedValue&& v);
  void finish();  // flushes the last group of records
  // When set, each folded record whose known copy has a place (ui/api records, a HistoryItem) is listed here.
  std::vector<CarvedFold>* folds = nullptr;
  // Image byte ranges [from, to), sorted and apart, that the scan already read as the content of deleted files: a
  // record folded there is that file's own bytes, not another copy, so it is not listed in folds (still counted).
  std::vector<std::pair<uint64_t, uint64_t>> read_by_scan;

 private:
  void flush();
  void emit_group();
  bool read_by_scan_holds(const CarvedValue& v) const;
  const KnownRecords& known_;
  const std::vector<CarveRegion>& regions_;
  RowSink& sink_;
  CarveStats& stats_;
  bool native_;
  std::vector<CarvedValue> group_;  // consecutive records of one array (or one lone value)
  size_t group_bytes_ = 0;
  // A long array is read in parts of at most kMaxGroupBytes; the task of its earlier parts attributes the later ones.
  std::optional<std::string> array_task_;
  uint64_t taken_end_ = 0;
};

}  // namespace roo
