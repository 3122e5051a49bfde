// Reading Roo's whole-file JSON documents from a ByteSource, streamed and hashed in one pass.
//
// Roo writes task files as one JSON array (tens to hundreds of MB). JsonArrayReader frames the array record by
// record with a byte scanner (string/escape/depth tracking) and parses each record alone with RapidJSON's
// iterative (non-recursive) reader into a small DOM. So memory is the largest record, not the file, and a bad
// record is skipped at its own end instead of ending the file: every other record is kept (docs/row-contract.md
// "Bad-line rows"). A SAX reader over the whole array could not resume after a syntax error.
#pragma once

#include <rapidjson/document.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/evidence.h"
#include "core/sha256.h"

namespace roo {

// Parses JSON text into doc without recursion (hostile nesting cannot exhaust the stack) and with every number
// converted exactly by std::from_chars: a cost such as 0.09809999999999999 comes out as Roo wrote it. RapidJSON's
// default conversion can be off in the last place, and its full-precision mode reads past a table and overflows on
// hostile exponents (found by tests/fuzz), so RapidJSON hands numbers over as text. Returns false with *error set.
// Nesting deeper than kMaxJsonDepth is refused (a parse error), since the DOM walks that follow recurse. Lone UTF-16
// surrogate escapes, valid JSON that RapidJSON refuses, are read as U+FFFD. first_value_only ignores what follows
// the first value (a JSON status that opens a tool result, say).
inline constexpr int kMaxJsonDepth = 256;
bool parse_json(const char* text, size_t length, rapidjson::Document& doc, std::string* error,
                bool first_value_only = false);

// A Document whose first kBytes are a buffer inside this object (on the stack, for a local): a Document of its own
// takes a 64 KiB first chunk from the heap at its first allocation whatever its text's size (RapidJSON's default),
// per carved value or embedded text read; larger DOMs take chunks from the heap beyond the buffer.
class LocalDocument {
 public:
  static constexpr size_t kBytes = 8192;
  LocalDocument() : pool_(buffer_, kBytes), doc(&pool_) {}
  LocalDocument(const LocalDocument&) = delete;
  LocalDocument& operator=(const LocalDocument&) = delete;

 private:
  alignas(8) char buffer_[kBytes];
  rapidjson::MemoryPoolAllocator<> pool_;

 public:
  rapidjson::Document doc;
};

// Sequential reader over a ByteSource that hashes every byte it reads. finish() reads to the end so the
// sha256 always covers the whole file even when parsing stopped early.
class HashingStream {
 public:
  explicit HashingStream(ByteSource& src, size_t chunk = 1 << 20);
  // Next byte, or -1 at end of data (or at a read error, see read_error()).
  int peek() {
    if (pos_ < len_) return static_cast<unsigned char>(buf_[pos_]);
    return refill() ? static_cast<unsigned char>(buf_[pos_]) : -1;
  }
  int take() {
    int c = peek();
    if (c >= 0) ++pos_;
    return c;
  }
  uint64_t offset() const { return base_ + pos_; }
  // Contiguous bytes available now (at least one unless at end).
  const char* window(size_t* n) {
    if (pos_ >= len_ && !refill()) {
      *n = 0;
      return nullptr;
    }
    *n = len_ - pos_;
    return buf_.get() + pos_;
  }
  void advance(size_t n) { pos_ += n; }
  std::string finish();  // reads the rest, returns sha256 hex
  const std::string& read_error() const { return error_; }
  uint64_t bytes_read() const { return base_ + len_; }
  ByteSource& source() { return src_; }

 private:
  bool refill();
  ByteSource& src_;
  size_t buf_size_;
  std::unique_ptr<char[]> buf_;
  size_t pos_ = 0, len_ = 0;
  uint64_t base_ = 0;
  Sha256 sha_;
  std::string error_;
  bool eof_ = false;
};

struct JsonRecord {
  int64_t index = 0;        // 0-based array position
  uint64_t offset = 0;      // byte offset of the record in the file
  uint64_t length = 0;      // byte length of the record text
  std::string text;         // the record's bytes (kept for native output and error rows)
  rapidjson::Document doc;  // parsed record; valid when parse_error is empty
  std::string parse_error;  // why the record did not parse
  std::string text_sha256;  // of text; filled only when versions of the file are being folded (RecordFolds)
  // Where JsonArrayReader builds doc: one buffer for every record of a reading, cleared before each (a record's DOM
  // lives until the next one is read, as before). A Document of its own would take a 64 KiB first chunk from the
  // heap per record whatever the record's size (RapidJSON's default), and give it back after. Made on first use;
  // on the heap, so a moved record's doc still points at its allocator.
  struct Pool;
  std::shared_ptr<Pool> pool;
};

class JsonArrayReader {
 public:
  enum class Status {
    record,        // a record was read (check parse_error)
    end,           // the array closed normally
    not_an_array,  // the document does not start with '['
    empty,         // the file has no bytes (or only whitespace)
    cut_off,       // the data ended inside the array; the record has the cut record's offset and bytes
    trailing,      // bytes follow the array's end (offset in the record); framing goes on after them
    junk,          // bytes that cannot begin a JSON value stood where a record should (offset and length in the
                   // record); skipped up to the next record start, so they take no array position
  };
  explicit JsonArrayReader(HashingStream& in) : in_(in) {}
  Status next(JsonRecord& out);
  int64_t records_seen() const { return next_index_; }

 private:
  bool scan_value(std::string& text);  // false when the data ended inside the value
  void skip_junk();
  HashingStream& in_;
  bool started_ = false;
  bool ended_ = false;
  size_t over_limit_ = 0;   // the limit the record being scanned outgrew (kMaxRecordBytes, kMaxScalarBytes), or 0
  bool broken_off_ = false;  // the record being scanned met a NUL byte, which no JSON text holds
  int64_t next_index_ = 0;
};

// A record larger than this is not kept in memory: it is framed and hashed to its end and reported as a
// parser_error, so one hostile record cannot exhaust memory.
inline constexpr size_t kMaxRecordBytes = 256u << 20;
// A number, true, false or null is a few dozen bytes; what goes on longer is junk and is not kept past this.
inline constexpr size_t kMaxScalarBytes = 4096;

// Reads a whole small JSON document (history_item.json, _index.json, …). Returns false with *why set when the
// bytes do not parse. Reads at most max_bytes.
bool read_json_document(HashingStream& in, rapidjson::Document& doc, std::string* why, std::string* text,
                        uint64_t max_bytes = 256ull << 20);

// The stream's bytes up to `cap`; the rest is read (so hashed) but not kept, and *over says whether there was more.
std::string read_up_to(HashingStream& in, size_t cap, bool* over);

// Whether the bytes of src from `from` on hold the JSON string token `"<word>"` outside any JSON string (inside a
// string its quotes would be escaped). Reads in chunks, never the whole file at once; does not hash.
bool contains_json_token(ByteSource& src, uint64_t from, std::string_view word);

// VS Code's settings.json is JSONC: // and /* */ comments and trailing commas are allowed. Returns the text with
// them removed (strings untouched), so it parses as JSON; byte offsets are not kept.
std::string strip_jsonc(std::string_view text);

// Accessors that never throw on a wrong type.
const rapidjson::Value* member(const rapidjson::Value& obj, const char* name);
std::optional<std::string> get_string(const rapidjson::Value& obj, const char* name);
std::optional<int64_t> get_int(const rapidjson::Value& obj, const char* name);  // integral numbers only
std::optional<double> get_number(const rapidjson::Value& obj, const char* name);
std::optional<bool> get_bool(const rapidjson::Value& obj, const char* name);
std::string to_json_text(const rapidjson::Value& v);

}  // namespace roo
