// The row: one fact, with its provenance and a named time source (docs/row-contract.md).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "core/evidence.h"

namespace roo {

inline constexpr const char* kRowSchema = "roo-ingest/row/1";

// A kind-specific value. RawJson holds a JSON text that is written verbatim (e.g. a tool's input object).
struct RawJson {
  std::string text;
};
using FieldValue = std::variant<std::nullptr_t, bool, int64_t, double, std::string, RawJson>;

// The file a row came from: which file system, which name, and the sha256 of its bytes (filled when the whole
// file has been read; rows are written before that and patched, see RowWriter).
struct SourceRef {
  const VolumeInfo* volume = nullptr;
  FileMeta file;
};

// Where in its source file a row's record sits.
struct RecordPosition {
  std::optional<int64_t> record_index;  // array index (docs/row-contract.md "Identity"); none for whole documents
  std::optional<int64_t> sub_index;     // content-block index inside an API message
  std::optional<int64_t> part_index;    // one of several rows of the same kind from one block (files of a patch)
  std::optional<uint64_t> byte_offset;
  std::optional<uint64_t> byte_length;
  // Carved records: the file-system blocks their bytes lie in, as [first, last] ranges (byte_offset is then
  // the image offset). Written only when set.
  std::vector<std::pair<uint64_t, uint64_t>> blocks;
};

// Who the rows of one task belong to; copied onto every row of the task.
struct TaskIdentity {
  std::string surface;
  std::optional<std::string> user;
  std::optional<std::string> session_id, parent_session_id, root_session_id, project_path;
};

struct Row {
  std::string kind;
  std::optional<int64_t> time_ms;
  std::string time_source = "none";
  const TaskIdentity* identity = nullptr;
  std::optional<std::string> role;
  std::optional<std::string> text;
  std::vector<std::pair<std::string, FieldValue>> fields;  // kind-specific, in insertion order
  const SourceRef* source = nullptr;
  RecordPosition position;
  std::optional<std::string> native;  // verbatim record text, only with --native

  Row& set(std::string key, FieldValue value) {
    fields.emplace_back(std::move(key), std::move(value));
    return *this;
  }
  template <typename T>
  Row& set_opt(std::string key, const std::optional<T>& value) {
    if (value) fields.emplace_back(std::move(key), FieldValue(*value));
    return *this;
  }
  // The first field of that name, if any; its string value when it holds one.
  const FieldValue* field(std::string_view key) const {
    for (const auto& [k, v] : fields)
      if (k == key) return &v;
    return nullptr;
  }
  const std::string* string_field(std::string_view key) const {
    const FieldValue* v = field(key);
    return v ? std::get_if<std::string>(v) : nullptr;
  }
};

// Receives rows from parsers. Parsers never write files themselves.
class RowSink {
 public:
  virtual ~RowSink() = default;
  virtual void emit(const Row& row) = 0;
  // A row the caller no longer needs: a sink that changes rows (a RowFilter) takes it without copying.
  void emit(Row&& row) { take(std::move(row)); }
  virtual void take(Row&& row) { emit(static_cast<const Row&>(row)); }
  // Every row of one source file has been emitted; its sha256 is now known (see RowWriter).
  virtual void end_source(const std::string& /*sha256_hex*/) {}
};

// Passes every row on to another sink after looking at it or changing it (adapt); end_source is passed on.
class RowFilter : public RowSink {
 public:
  explicit RowFilter(RowSink& out) : out_(out) {}
  void emit(const Row& row) override {
    Row copy = row;
    take(std::move(copy));
  }
  void take(Row&& row) override {
    adapt(row);
    out_.emit(std::move(row));
  }
  void end_source(const std::string& sha) override { out_.end_source(sha); }

 protected:
  virtual void adapt(Row& row) = 0;

 private:
  RowSink& out_;
};

// Hands every row to several sinks (rows.jsonl, the body file, counters …), in order.
class RowFanOut : public RowSink {
 public:
  explicit RowFanOut(std::vector<RowSink*> sinks) : sinks_(std::move(sinks)) {}
  void emit(const Row& row) override {
    for (RowSink* s : sinks_) s->emit(row);
  }
  void end_source(const std::string& sha) override {
    for (RowSink* s : sinks_) s->end_source(sha);
  }

 private:
  std::vector<RowSink*> sinks_;
};

// The 32-hex row id: stable across reruns, from the evidence locator, the record position and the kind.
std::string row_id(const Row& row);

// Serialises a row as one JSONL line (with '\n'). The source sha256 is written as a placeholder of
// kShaPlaceholderLength bytes, at *sha_offset in the line, which is replaced once the whole source has been hashed
// (RowWriter, or patch_sha256 on a string).
std::string row_to_json_line(const Row& row, size_t* sha_offset = nullptr);
// Where the bytes of a row with a long string go while it is written: a string of kRowDrainChunk bytes or more is
// escaped a chunk at a time, and whenever out holds a chunk's worth drain() takes what out holds (writes it, clears
// it). So a 200 MiB text costs its escaped copy only a chunk at a time.
class RowDrain {
 public:
  virtual ~RowDrain() = default;
  virtual void drain(std::string& out) = 0;
};
inline constexpr size_t kRowDrainChunk = 1u << 20;
// The same line appended to out. *sha_offset is then the placeholder's offset from where out started, counting
// the bytes a drain took (with no drain, or none needed: its offset in out).
void append_row_json_line(const Row& row, std::string& out, size_t* sha_offset = nullptr, RowDrain* drain = nullptr);
inline constexpr size_t kShaPlaceholderLength = 66;  // the quoted 64-char value
void patch_sha256(std::string& lines, const std::string& sha256_hex);
// What replaces the placeholder: the quoted digest, or null padded with spaces to the same width when the source
// could not be read at all (never an empty or made-up value).
std::string sha256_json_value(const std::string& sha256_hex);

}  // namespace roo
