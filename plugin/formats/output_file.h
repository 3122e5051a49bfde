// What every derived format shares: the file it writes and the counts report.json gives for it.
#pragma once

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <string_view>

#include "plugin/formats/format_writer.h"

namespace roo {

// An output file written through a large stdio buffer; every write is checked, and close() says what went wrong
// (a full disk shows up there, not as a short file that looks finished).
class OutputFile {
 public:
  explicit OutputFile(std::filesystem::path path);
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  void write(std::string_view bytes);
  // False, with *error naming the file and the cause, when it could not be opened, written or closed.
  bool close(std::string* error);

 private:
  std::filesystem::path path_;
  std::FILE* file_ = nullptr;
  int errno_ = 0;  // the first failure's
};

// A FormatWriter that counts what it wrote and what it left out, and why (report.json "outputs").
class CountingWriter : public FormatWriter {
 public:
  int64_t rows_written() const { return written_; }
  int64_t rows_left_out() const { return left_out_; }
  const std::string& left_out_reason() const { return left_out_reason_; }

 protected:
  int64_t written_ = 0;
  int64_t left_out_ = 0;
  std::string left_out_reason_;
};

}  // namespace roo
