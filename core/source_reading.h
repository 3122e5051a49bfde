// One source file being read: its provenance, its hashed byte stream, the context its rows are made with, and
// its line in the run report (written, with the file's sha256, when the source ends).
#pragma once

#include <memory>
#include <optional>

#include "core/json_records.h"
#include "core/parsers/parse_context.h"
#include "core/scan_report.h"

namespace roo {

// One source file being parsed: its provenance, its hashed byte stream, and the context rows are made with.
class SourceReading {
 public:
  SourceReading(FileSystemView& fs, const FileMeta& meta, const TaskIdentity* identity, RowSink& out,
             ScanReport& report, bool native, const char* kind)
      : out_(out), report_(report) {
    source_.volume = &fs.volume();
    source_.file = meta;
    ctx.identity = identity;
    ctx.source = &source_;
    ctx.file_name = meta.name;
    ctx.native = native;
    ctx.sink = &out;
    record_.path = meta.path;
    record_.kind = kind;
    bytes_ = fs.open(meta);
    if (bytes_) {
      stream_.emplace(*bytes_);
    } else {
      ctx.error("parser: " + meta.name + " could not be opened");
      report.errors.push_back(meta.path + ": could not be opened");
    }
  }
  ~SourceReading() { finish(); }
  HashingStream* stream() { return stream_ ? &*stream_ : nullptr; }
  void add_stats(const ParseStats& s) {
    record_.records += s.records;
    record_.good_records += s.good_records;
    record_.errors += s.errors;
    record_.folded += s.folded;
    record_.version_folded += s.version_folded;
  }
  // A parser_error row this file gave outside a parser's own ParseStats (a store read whole, then found unreadable):
  // emitted through ctx, or through another sink and only counted here.
  void error(std::string text) {
    ctx.error(std::move(text));
    count_error();
  }
  void count_error() { ++record_.errors; }
  ParseContext ctx;

 private:
  void finish() {
    if (stream_) {
      record_.sha256 = stream_->finish();
      record_.bytes = stream_->bytes_read();
      if (!stream_->read_error().empty()) {
        // The digest of the bytes before a read error is not the file's: null, and the error is reported.
        record_.sha256.clear();
        report_.errors.push_back(record_.path + ": " + stream_->read_error());
      }
    }
    out_.end_source(record_.sha256);
    record_.meta = source_.file;
    if (ctx.identity) record_.identity = *ctx.identity;
    report_.files.push_back(std::move(record_));
    if (report_.file_done) report_.file_done(report_.files.back());
  }
  RowSink& out_;
  ScanReport& report_;
  SourceRef source_;
  std::unique_ptr<ByteSource> bytes_;
  std::optional<HashingStream> stream_;
  FileParseRecord record_;
};

}  // namespace roo
