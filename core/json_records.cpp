#include "core/json_records.h"

// AddressSanitizer builds (tests/fuzz) poison the record pools kept between readings.
#if defined(__SANITIZE_ADDRESS__)
#define ROO_POOL_POISON 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ROO_POOL_POISON 1
#endif
#endif
#ifdef ROO_POOL_POISON
#include <sanitizer/asan_interface.h>
#endif

#include <rapidjson/error/en.h>
#include <rapidjson/reader.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <mutex>

#include "core/text_util.h"

namespace roo {
namespace {
// The end of the text parse_once() parses in place (one past its terminating NUL), for the string scan below.
thread_local const char* insitu_end = nullptr;
}  // namespace
}  // namespace roo

// RapidJSON copies a string's unescaped bytes one at a time unless built with RAPIDJSON_SSE2, and its SSE2 paths are
// wrong in 1.1.0 (they let control bytes 0x1A-0x1F through, which the scalar path refuses). The in-situ reader here
// scans with json_string_stop instead, which stops at exactly the bytes the scalar loop stops at ('"', '\\',
// anything below 0x20, the terminating NUL among them), so the reader accepts and refuses what it did before.
// Kept because it earns it: on the benchmark image (tests/bench/run-bench.sh's image run, 2 cores, best of 21
// alternating runs on a loaded machine) a run without it took 17 % more CPU time, 3.91 s against 3.35 s.
namespace rapidjson {
template <>
template <>
inline void GenericReader<UTF8<>, UTF8<>, CrtAllocator>::ScanCopyUnescapedString<InsituStringStream,
                                                                                  InsituStringStream>(
    InsituStringStream& is, InsituStringStream&) {
  char* const p = is.src_;
  const size_t n = static_cast<size_t>(roo::json_string_stop(p, roo::insitu_end) - p);
  if (is.dst_ != p) std::memmove(is.dst_, p, n);  // behind the source since the string's first escape
  is.src_ = p + n;
  is.dst_ += n;
}
}  // namespace rapidjson

namespace roo {

// The buffer is no larger than the file (most Roo files are a few KB, and zeroing a 1 MiB buffer per file cost a
// sixth of a run's instructions) and is left uninitialised: only bytes read into it are looked at.
HashingStream::HashingStream(ByteSource& src, size_t chunk)
    : src_(src),
      buf_size_(static_cast<size_t>(std::max<uint64_t>(1, std::min<uint64_t>(chunk, std::max<uint64_t>(src.size() + 1, 4096))))),
      buf_(new char[buf_size_]) {}

bool HashingStream::refill() {
  if (eof_) return false;
  base_ += len_;
  pos_ = len_ = 0;
  int64_t n = src_.read_at(base_, buf_.get(), buf_size_);
  if (n < 0) {
    error_ = src_.error().empty() ? "read error" : src_.error();
    eof_ = true;
    return false;
  }
  if (n == 0) {
    eof_ = true;
    return false;
  }
  len_ = static_cast<size_t>(n);
  sha_.update(buf_.get(), len_);
  return true;
}

std::string HashingStream::finish() {
  pos_ = len_;
  while (refill()) pos_ = len_;
  return sha_.hex();
}

namespace {

bool is_ws(int c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// Whether a JSON value can begin with this byte.
bool starts_value(int c) {
  return c == '{' || c == '[' || c == '"' || c == '-' || (c >= '0' && c <= '9') || c == 't' || c == 'f' || c == 'n';
}

void skip_ws(HashingStream& in) {
  while (is_ws(in.peek())) in.take();
}

// Where a parse builds its values before they become the document's (RapidJSON's GenericDocument stack). A
// Document's own stack is taken from the heap at a parse's first value, grown by reallocation, and given back at its
// end (ClearStack), two to four allocations per text parsed whatever its size; with the reader's own stack (kept in
// one reader per thread, below) those allocations were 7 % of fuzz_ui_messages' time, and keeping both took it from
// 3,724-4,464 to 4,065-5,051 CPU executions a second (20,000-input fixed-seed runs, tests/fuzz/README.md). This one
// is a buffer per thread, kept between parses up to kKeptBytes (a record of hostile size does not keep its stack's
// memory). RapidJSON's stack holds one block at a time, so the buffer is that block.
class KeptStack {
 public:
  [[maybe_unused]] static const bool kNeedFree = false;  // RapidJSON's Allocator concept; the stack never frees
  static constexpr size_t kKeptBytes = size_t{64} << 10;
  void* Malloc(size_t size) { return Realloc(nullptr, 0, size); }
  void* Realloc(void*, size_t old_size, size_t new_size) {
    if (new_size > size_) {
      std::unique_ptr<char[]> bigger(new char[new_size]);
      if (old_size) std::memcpy(bigger.get(), buffer_.get(), std::min(old_size, size_));
      buffer_ = std::move(bigger);
      size_ = new_size;
    }
    return buffer_.get();
  }
  static void Free(void*) {}
  // After a parse: a buffer grown past kKeptBytes is given back.
  void trim() {
    if (size_ <= kKeptBytes) return;
    buffer_.reset();
    size_ = 0;
  }

 private:
  std::unique_ptr<char[]> buffer_;
  size_t size_ = 0;
};
using StagingDocument = rapidjson::GenericDocument<rapidjson::UTF8<>, rapidjson::MemoryPoolAllocator<>, KeptStack>;

// Forwards SAX events to a Document, turning RapidJSON's raw number text into exact values.
// Also refuses nesting deeper than kMaxJsonDepth: the DOM walks that follow (serialising a tool input, say) recurse.
// And it notes whether an object names a key twice, which RapidJSON keeps as two members (FindMember then finds the
// first) while Roo's JSON.parse keeps the last value: keep_last_duplicates() then makes the document say what Roo
// read. Keys are compared within their own object only, against the keys seen so far at that depth.
struct ExactNumbers {
  StagingDocument& doc;
  bool out_of_range = false;
  bool too_deep = false;
  bool duplicate_keys = false;
  int depth = 0;
  std::vector<std::vector<std::string_view>>& keys_at_depth;  // reused across parses: no allocation per record

  bool enter() {
    if (++depth > kMaxJsonDepth) {
      too_deep = true;
      return false;
    }
    return true;
  }
  void note_key(const char* s, rapidjson::SizeType n) {
    if (duplicate_keys) return;  // one is enough to know the document needs the fix-up
    std::vector<std::string_view>& seen = keys_at_depth[static_cast<size_t>(depth)];
    const std::string_view key(s, n);
    for (const std::string_view& k : seen)
      if (k == key) {
        duplicate_keys = true;
        return;
      }
    seen.push_back(key);
  }

  bool RawNumber(const char* s, rapidjson::SizeType n, bool) {
    const char* end = s + n;
    if (!std::memchr(s, '.', n) && !std::memchr(s, 'e', n) && !std::memchr(s, 'E', n)) {
      int64_t i;
      if (std::from_chars(s, end, i).ec == std::errc()) return doc.Int64(i);
      uint64_t u;
      if (std::from_chars(s, end, u).ec == std::errc()) return doc.Uint64(u);
    }
    double d;
    auto r = std::from_chars(s, end, d);
    if (r.ec != std::errc() || r.ptr != end) {
      out_of_range = true;  // e.g. 1e999: not a double
      return false;
    }
    return doc.Double(d);
  }
  bool Null() { return doc.Null(); }
  bool Bool(bool b) { return doc.Bool(b); }
  bool Int(int i) { return doc.Int(i); }
  bool Uint(unsigned u) { return doc.Uint(u); }
  bool Int64(int64_t i) { return doc.Int64(i); }
  bool Uint64(uint64_t u) { return doc.Uint64(u); }
  bool Double(double d) { return doc.Double(d); }
  bool String(const char* s, rapidjson::SizeType n, bool copy) { return doc.String(s, n, copy); }
  bool StartObject() {
    if (!enter()) return false;
    if (keys_at_depth.size() <= static_cast<size_t>(depth)) keys_at_depth.resize(static_cast<size_t>(depth) + 1);
    keys_at_depth[static_cast<size_t>(depth)].clear();
    return doc.StartObject();
  }
  bool Key(const char* s, rapidjson::SizeType n, bool copy) {
    note_key(s, n);
    return doc.Key(s, n, copy);
  }
  bool EndObject(rapidjson::SizeType n) { return --depth, doc.EndObject(n); }
  bool StartArray() { return enter() && doc.StartArray(); }
  bool EndArray(rapidjson::SizeType n) { return --depth, doc.EndArray(n); }
};

int hex_value(char c) {
  return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

// The code unit of a "\uXXXX" escape at text[i] (text[i] == '\\'), or -1.
int escape_unit(std::string_view text, size_t i) {
  if (i + 6 > text.size() || text[i + 1] != 'u') return -1;
  int v = 0;
  for (size_t k = i + 2; k < i + 6; ++k) {
    int h = hex_value(text[k]);
    if (h < 0) return -1;
    v = v * 16 + h;
  }
  return v;
}

// JSON.stringify writes a lone UTF-16 surrogate as an escape (a model stream cut inside an emoji leaves one); it is
// valid JSON but RapidJSON refuses it. Each lone surrogate escape becomes \ufffd so the record is kept.
std::string replace_lone_surrogates(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\\' || i + 1 >= text.size()) {
      out += text[i];
      continue;
    }
    int unit = escape_unit(text, i);
    if (unit >= 0xD800 && unit <= 0xDBFF) {
      int next = i + 6 < text.size() && text[i + 6] == '\\' ? escape_unit(text, i + 6) : -1;
      if (next >= 0xDC00 && next <= 0xDFFF) {  // a proper pair: keep both
        out.append(text.substr(i, 12));
        i += 11;
      } else {
        out += "\\ufffd";
        i += 5;
      }
    } else if (unit >= 0xDC00 && unit <= 0xDFFF) {
      out += "\\ufffd";
      i += 5;
    } else {  // any other escape: copy its two characters so "\\\\u…" is not read as an escape
      out += text[i];
      out += text[i + 1];
      ++i;
    }
  }
  return out;
}

// JSON.parse semantics for a key named twice in one object: the member stays where the key first stood and holds the
// value the key was given last. Iterative (a work list), as the parse is: nesting is bounded, but not small.
void keep_last_duplicates(rapidjson::Value& root) {
  std::vector<rapidjson::Value*> todo{&root};
  while (!todo.empty()) {
    rapidjson::Value* v = todo.back();
    todo.pop_back();
    if (v->IsArray()) {
      for (auto& e : v->GetArray()) todo.push_back(&e);
      continue;
    }
    if (!v->IsObject()) continue;
    for (auto i = v->MemberBegin(); i != v->MemberEnd(); ++i) {
      for (auto j = i + 1; j != v->MemberEnd();) {
        if (j->name == i->name) {
          i->value = j->value;  // RapidJSON's assignment moves
          j = v->EraseMember(j);
        } else {
          ++j;
        }
      }
      todo.push_back(&i->value);
    }
  }
}

}  // namespace

// A record's DOM that fits in kBuffer bytes (its text's copy included: a record of a few KB) takes no allocation;
// a larger one takes chunks from the heap beyond it, given back when the next record is read, so memory stays at
// one record.
struct JsonRecord::Pool {
  static constexpr size_t kBuffer = 16u << 10;
  Pool() : allocator(buffer.get(), kBuffer) {}
  std::unique_ptr<char[]> buffer{new char[kBuffer]};
  rapidjson::MemoryPoolAllocator<> allocator;
};

namespace {
void set_poisoned([[maybe_unused]] JsonRecord::Pool& pool, [[maybe_unused]] bool poisoned) {
#ifdef ROO_POOL_POISON
  if (poisoned)
    __asan_poison_memory_region(pool.buffer.get(), JsonRecord::Pool::kBuffer);
  else
    __asan_unpoison_memory_region(pool.buffer.get(), JsonRecord::Pool::kBuffer);
#endif
}
}  // namespace

namespace {

// Pools of finished readings, kept for the next ones: a reading is often a small file (a task's history_item.json,
// one of many), and making and freeing a pool's buffer per reading was a measurable part of reading small files
// (tests/fuzz/README.md). Never destroyed, so a record outliving static destruction can still give its pool back.
// A pool comes back emptied (a large record's chunks freed), and only a few are kept. Under AddressSanitizer a kept
// pool's buffer is poisoned until it is taken again, so a DOM used after its record is gone is still reported, as
// it was when the buffer was freed.

struct PoolCache {
  static constexpr size_t kKept = 8;
  std::mutex mutex;
  std::vector<std::unique_ptr<JsonRecord::Pool>> pools;
};
PoolCache& pool_cache() {
  static PoolCache* cache = new PoolCache;
  return *cache;
}

std::shared_ptr<JsonRecord::Pool> take_pool() {
  std::unique_ptr<JsonRecord::Pool> pool;
  {
    PoolCache& cache = pool_cache();
    std::lock_guard<std::mutex> lock(cache.mutex);
    if (!cache.pools.empty()) {
      pool = std::move(cache.pools.back());
      cache.pools.pop_back();
    }
  }
  if (pool)
    set_poisoned(*pool, false);
  else
    pool = std::make_unique<JsonRecord::Pool>();
  return std::shared_ptr<JsonRecord::Pool>(pool.release(), [](JsonRecord::Pool* p) {
    std::unique_ptr<JsonRecord::Pool> back(p);
    back->allocator.Clear();
    PoolCache& cache = pool_cache();
    std::lock_guard<std::mutex> lock(cache.mutex);
    if (cache.pools.size() >= PoolCache::kKept) return;
    set_poisoned(*back, true);
    cache.pools.push_back(std::move(back));
  });
}

// Parses one record text into the record's pool, emptied of the previous record first.
void parse_record(JsonRecord& rec) {
  if (!rec.pool) rec.pool = take_pool();
  {
    rapidjson::Document previous(&rec.pool->allocator);
    rec.doc.Swap(previous);  // the previous record's DOM goes with `previous` (nothing to free in a pool)
  }
  rec.pool->allocator.Clear();
  rec.parse_error.clear();
  parse_json(rec.text.data(), rec.text.size(), rec.doc, &rec.parse_error);
}

}  // namespace

bool JsonArrayReader::scan_value(std::string& text) {
  int c = in_.peek();
  if (c == '{' || c == '[' || c == '"') {
    int depth = 0;
    bool in_string = false, escape = false;
    for (;;) {
      size_t n;
      const char* w = in_.window(&n);
      if (!w) return false;
      size_t i = 0;
      bool done = false;
      for (; i < n; ++i) {
        if (in_string && !escape) {
          // Strings are most of Roo's bytes: jump to the next quote, backslash or control byte. NUL is one: no JSON
          // text holds one (JSON.stringify escapes it), and the zeros a file system leaves after a cut write must end
          // the record there, not be taken into it up to kMaxRecordBytes. Other control bytes are passed over below.
          const char* stop = json_string_stop(w + i, w + n);
          if (stop == w + n) {
            i = n - 1;  // the string goes on past this window
            continue;
          }
          i = static_cast<size_t>(stop - w);
        }
        const char ch = w[i];
        if (ch == 0) {  // the record is broken off here; the NUL is left for the junk skip that follows
          broken_off_ = done = true;
          break;
        }
        if (in_string) {
          if (escape)
            escape = false;
          else if (ch == '\\')
            escape = true;
          else if (ch == '"') {
            in_string = false;
            if (depth == 0) {  // a top-level string record ends here
              done = true;
              break;
            }
          }
        } else if (ch == '"') {
          in_string = true;
        } else if (ch == '{' || ch == '[') {
          ++depth;
        } else if (ch == '}' || ch == ']') {
          if (--depth == 0) {
            done = true;
            break;
          }
        }
      }
      const size_t take = done ? (broken_off_ ? i : i + 1) : n;
      if (text.size() + take <= kMaxRecordBytes)
        text.append(w, take);
      else
        over_limit_ = kMaxRecordBytes;
      in_.advance(take);
      if (done) return true;
    }
  }
  // A scalar: up to the next separator (or a NUL), at least one byte, kept up to kMaxScalarBytes.
  text.push_back(static_cast<char>(in_.take()));
  for (;;) {
    int p = in_.peek();
    if (p < 0) return false;
    if (p == ',' || p == ']' || p == '}' || is_ws(p)) return true;
    if (p == 0) {
      broken_off_ = true;
      return true;
    }
    in_.take();
    if (text.size() < kMaxScalarBytes)
      text.push_back(static_cast<char>(p));
    else
      over_limit_ = kMaxScalarBytes;
  }
}

// Bytes that cannot begin a value, up to the next one that can begin a record or separates records. They are not
// kept: a file padded with a gigabyte of zeros costs no memory.
void JsonArrayReader::skip_junk() {
  for (;;) {
    size_t n;
    const char* w = in_.window(&n);
    if (!w) return;
    size_t i = 0;
    while (i < n && !(w[i] == '{' || w[i] == '[' || w[i] == '"' || w[i] == ',' || w[i] == ']')) ++i;
    in_.advance(i);
    if (i < n) return;
  }
}

JsonArrayReader::Status JsonArrayReader::next(JsonRecord& out) {
  if (!started_) {
    // A UTF-8 byte-order mark is not something Roo writes, but hand-edited or copied files may have one.
    if (in_.peek() == 0xEF) {
      in_.take();
      if (in_.peek() == 0xBB) in_.take();
      if (in_.peek() == 0xBF) in_.take();
    }
    skip_ws(in_);
    int c = in_.peek();
    if (c < 0) return Status::empty;
    if (c != '[') return Status::not_an_array;
    in_.take();
    started_ = true;
  }
  for (;;) {
    skip_ws(in_);
    int c = in_.peek();
    if (ended_) {
      if (c < 0) return Status::end;
      // Bytes after the closing bracket: say so once, then read on as if the array went on, so a record after a
      // stray ']' is not lost.
      ended_ = false;
      out.offset = in_.offset();
      out.text.clear();
      out.length = 0;
      if (c == ',') in_.take();
      return Status::trailing;
    }
    if (c < 0) {
      out.offset = in_.offset();  // the data ended between records: nothing of the next one was written
      out.text.clear();
      out.length = 0;
      return Status::cut_off;
    }
    if (c == ']') {
      in_.take();
      skip_ws(in_);
      if (in_.peek() < 0) return Status::end;
      ended_ = true;
      continue;
    }
    if (c == ',') {
      in_.take();
      continue;
    }
    if (!starts_value(c)) {
      out.offset = in_.offset();
      out.text.clear();
      skip_junk();
      out.length = in_.offset() - out.offset;
      return Status::junk;
    }
    break;
  }
  out.index = next_index_;
  out.offset = in_.offset();
  if (out.text.capacity() > (64u << 20)) std::string().swap(out.text);  // a long record's buffer is not kept
  out.text.clear();
  over_limit_ = 0;
  broken_off_ = false;
  if (!scan_value(out.text)) {
    out.length = in_.offset() - out.offset;  // the cut record's bytes, kept as evidence
    return Status::cut_off;
  }
  out.length = in_.offset() - out.offset;
  ++next_index_;
  if (over_limit_)
    out.parse_error = "record of " + std::to_string(out.length) + " bytes is larger than the " +
                      std::to_string(over_limit_) + "-byte limit";
  else if (broken_off_)
    out.parse_error = "broken off by a NUL byte at byte " + std::to_string(out.offset + out.length);
  else
    parse_record(out);
  return Status::record;
}

namespace {
rapidjson::ParseResult parse_once(const char* text, size_t length, rapidjson::Document& doc, bool first_value_only,
                                  std::string* why) {
  rapidjson::ParseResult result;
  bool duplicates = false;
  // In-situ parsing from a copy held by the document's own allocator: strings are unescaped in place and the
  // document points at them instead of copying each one, and the copy lives exactly as long as the document.
  // (A NUL byte ends the text for RapidJSON either way: it is not valid inside JSON.)
  char* copy = static_cast<char*>(doc.GetAllocator().Malloc(length + 1));
  std::memcpy(copy, text, length);
  copy[length] = 0;
  auto generate = [&](StagingDocument& target) {
    thread_local std::vector<std::vector<std::string_view>> keys_at_depth;
    ExactNumbers handler{target, false, false, false, 0, keys_at_depth};
    rapidjson::InsituStringStream ms(copy);
    insitu_end = copy + length + 1;
    // Kept between parses, so its stack is too (Parse empties it first); its depth is bounded by kMaxJsonDepth.
    thread_local rapidjson::Reader reader;
    constexpr unsigned base =
        rapidjson::kParseIterativeFlag | rapidjson::kParseNumbersAsStringsFlag | rapidjson::kParseInsituFlag;
    // Without kParseStopWhenDoneFlag anything but whitespace after the value is an error, as in a whole parse.
    result = first_value_only ? reader.Parse<base | rapidjson::kParseStopWhenDoneFlag>(ms, handler)
                              : reader.Parse<base>(ms, handler);
    if (handler.too_deep) *why = "nesting deeper than " + std::to_string(kMaxJsonDepth) + " levels";
    if (handler.out_of_range) *why = "number out of range";
    duplicates = handler.duplicate_keys;
    return !result.IsError();
  };
  thread_local KeptStack stack;
  {
    // The values are the document's (its allocator); only the stack they are built on is the kept one. On a parse
    // error the document is left as it was, as Populate leaves it.
    StagingDocument staging(&doc.GetAllocator(), 1024, &stack);
    staging.Populate(generate);
    if (!result.IsError()) static_cast<rapidjson::Value&>(doc) = static_cast<rapidjson::Value&>(staging);
  }
  stack.trim();
  if (!result.IsError() && duplicates) keep_last_duplicates(doc);
  return result;
}
}  // namespace

bool parse_json(const char* text, size_t length, rapidjson::Document& doc, std::string* error,
                bool first_value_only) {
  std::string why;
  rapidjson::ParseResult result = parse_once(text, length, doc, first_value_only, &why);
  if (result.Code() == rapidjson::kParseErrorStringUnicodeSurrogateInvalid) {
    const std::string repaired = replace_lone_surrogates(std::string_view(text, length));
    why.clear();
    result = parse_once(repaired.data(), repaired.size(), doc, first_value_only, &why);
  }
  if (result.IsError()) {
    if (error)
      *error = (why.empty() ? std::string(rapidjson::GetParseError_En(result.Code())) : why) + " at byte " +
               std::to_string(result.Offset());
    doc.SetNull();
    return false;
  }
  return true;
}

bool read_json_document(HashingStream& in, rapidjson::Document& doc, std::string* why, std::string* text,
                        uint64_t max_bytes) {
  std::string bytes;
  for (;;) {
    size_t n;
    const char* w = in.window(&n);
    if (!w) break;
    if (bytes.size() + n > max_bytes) {
      *why = "document larger than " + std::to_string(max_bytes) + " bytes";
      return false;
    }
    bytes.append(w, n);
    in.advance(n);
  }
  if (!in.read_error().empty()) {
    *why = "read error: " + in.read_error();
    return false;
  }
  size_t first = 0;
  while (first < bytes.size() && is_ws(static_cast<unsigned char>(bytes[first]))) ++first;
  if (first == bytes.size()) {
    *why = "empty";
    if (text) *text = bytes;
    return false;
  }
  const bool ok = parse_json(bytes.data(), bytes.size(), doc, why);
  if (text) *text = std::move(bytes);
  return ok;
}

const rapidjson::Value* member(const rapidjson::Value& obj, const char* name) {
  if (!obj.IsObject()) return nullptr;
  auto it = obj.FindMember(name);
  return it == obj.MemberEnd() ? nullptr : &it->value;
}

std::optional<std::string> get_string(const rapidjson::Value& obj, const char* name) {
  const rapidjson::Value* v = member(obj, name);
  if (!v || !v->IsString()) return std::nullopt;
  return std::string(v->GetString(), v->GetStringLength());
}

std::optional<int64_t> get_int(const rapidjson::Value& obj, const char* name) {
  const rapidjson::Value* v = member(obj, name);
  if (!v) return std::nullopt;
  if (v->IsInt64()) return v->GetInt64();
  if (v->IsDouble()) {
    double d = v->GetDouble();
    if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9.0e15) return static_cast<int64_t>(d);
  }
  return std::nullopt;
}

std::optional<double> get_number(const rapidjson::Value& obj, const char* name) {
  const rapidjson::Value* v = member(obj, name);
  if (!v || !v->IsNumber()) return std::nullopt;
  return v->GetDouble();
}

std::optional<bool> get_bool(const rapidjson::Value& obj, const char* name) {
  const rapidjson::Value* v = member(obj, name);
  if (!v || !v->IsBool()) return std::nullopt;
  return v->GetBool();
}

std::string to_json_text(const rapidjson::Value& v) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  v.Accept(w);
  return std::string(buf.GetString(), buf.GetSize());
}

}  // namespace roo

namespace roo {

bool contains_json_token(ByteSource& src, uint64_t from, std::string_view word) {
  std::string token(1, '"');
  token.append(word).push_back('"');
  // Reads of up to 1 MiB, but no larger than what is left of the source (as HashingStream sizes its buffer): a
  // small record must not cost a zeroed megabyte.
  const uint64_t left = src.size() > from ? src.size() - from : 0;
  const size_t kChunk = static_cast<size_t>(std::min<uint64_t>(1 << 20, std::max<uint64_t>(left + 1, 4096)));
  std::vector<char> buf(kChunk + token.size());
  size_t carry = 0;  // bytes kept from the previous chunk so a token across the boundary is found
  char before_carry = 0;
  for (uint64_t off = from;;) {
    int64_t n = src.read_at(off, buf.data() + carry, kChunk);
    if (n <= 0) return false;
    off += static_cast<uint64_t>(n);
    const size_t len = carry + static_cast<size_t>(n);
    std::string_view view(buf.data(), len);
    for (size_t at = view.find(token); at != std::string_view::npos; at = view.find(token, at + 1)) {
      const char prev = at > 0 ? view[at - 1] : before_carry;
      if (prev != '\\') return true;
    }
    // Keep the last token-length-minus-one bytes: a token across the chunk boundary is then found whole, and
    // no token can lie wholly inside them (it would have been seen already).
    const size_t keep = std::min(len, token.size() - 1);
    if (len > keep) before_carry = view[len - keep - 1];
    std::memmove(buf.data(), buf.data() + len - keep, keep);
    carry = keep;
  }
}

}  // namespace roo

namespace roo {

std::string strip_jsonc(std::string_view t) {
  std::string out;
  out.reserve(t.size());
  size_t last_comma = std::string::npos;  // position in out of a comma that may turn out to be trailing
  for (size_t i = 0; i < t.size();) {
    const char c = t[i];
    if (c == '"') {  // copy a string whole, escapes included
      size_t j = i + 1;
      while (j < t.size() && t[j] != '"') j += t[j] == '\\' ? 2 : 1;
      j = std::min(j + 1, t.size());
      out.append(t.substr(i, j - i));
      last_comma = std::string::npos;
      i = j;
    } else if (c == '/' && i + 1 < t.size() && t[i + 1] == '/') {
      while (i < t.size() && t[i] != '\n') ++i;
    } else if (c == '/' && i + 1 < t.size() && t[i + 1] == '*') {
      size_t end = t.find("*/", i + 2);
      i = end == std::string_view::npos ? t.size() : end + 2;
    } else if ((c == '}' || c == ']') && last_comma != std::string::npos) {
      out[last_comma] = ' ';  // a trailing comma
      last_comma = std::string::npos;
      out += c;
      ++i;
    } else {
      if (c == ',') {
        last_comma = out.size();
      } else if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
        last_comma = std::string::npos;
      }
      out += c;
      ++i;
    }
  }
  return out;
}

std::string read_up_to(HashingStream& in, size_t cap, bool* over) {
  std::string bytes;
  *over = false;
  size_t n = 0;
  while (const char* w = in.window(&n)) {
    if (bytes.size() + n <= cap)
      bytes.append(w, n);
    else
      *over = true;
    in.advance(n);
  }
  return bytes;
}

}  // namespace roo
