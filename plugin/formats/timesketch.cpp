#include "plugin/formats/timesketch.h"

#include <string>

#include "plugin/formats/display_time.h"
#include "plugin/formats/json_text.h"
#include "plugin/formats/row_fields.h"

namespace roo {

namespace {

bool is_event_key(std::string_view key) {
  return key == "message" || key == "datetime" || key == "timestamp" || key == "timestamp_desc" || key == "data_type";
}

// One row field as an event attribute: scalars as they are, objects and arrays as their JSON text.
void put_field(std::string& out, std::string_view prefix, std::string_view key, const rapidjson::Value& value) {
  if (value.IsNull()) return;  // absent and null say the same in a timeline: nothing recorded
  out += ',';
  if (prefix.empty()) {
    append_json_string(out, key);
  } else {
    std::string name(prefix);
    name += key;
    append_json_string(out, name);
  }
  out += ':';
  if (value.IsObject() || value.IsArray()) {
    thread_local std::string text;  // kept for its capacity, as the writer's line
    text.clear();
    append_json(text, value);
    append_json_string(out, text);
  } else {
    append_json(out, value);
  }
}

class TimesketchWriter : public CountingWriter {
 public:
  explicit TimesketchWriter(const std::filesystem::path& out_file) : out_(out_file) {
    left_out_reason_ = "no time (time_utc null): a Timesketch event needs a datetime";
  }
  void row(const rapidjson::Value& row, std::string_view) override {
    line_.clear();
    if (append_timesketch_line(line_, row)) {
      line_ += '\n';
      out_.write(line_);
      ++written_;
    } else {
      ++left_out_;
    }
  }
  bool finish(std::string* error) override { return out_.close(error); }

 private:
  OutputFile out_;
  std::string line_;  // kept: its capacity serves the next row, rather than growing a new string for each
};

}  // namespace

std::optional<std::string> timesketch_line(const rapidjson::Value& row) {
  std::string line;
  if (!append_timesketch_line(line, row)) return std::nullopt;
  return line;
}

bool append_timesketch_line(std::string& out, const rapidjson::Value& row) {
  const auto time_utc = string_member(row, "time_utc");
  const auto ms = time_utc ? epoch_ms_from_row_time(*time_utc) : std::nullopt;
  if (!ms) return false;
  out += "{\"message\":";
  append_json_string(out, row_message(row, kTimesketchMessageBytes));
  out += ",\"datetime\":";
  // time_utc is UTC with milliseconds and a "Z"; Timesketch documents the offset form.
  append_json_string(out, std::string(time_utc->substr(0, time_utc->size() - 1)) + "+00:00");
  out += ",\"timestamp\":";
  out += std::to_string(*ms * 1000);
  out += ",\"timestamp_desc\":";
  append_json_string(out, "Roo " + std::string(string_member(row, "time_source").value_or("none")));
  out += ",\"data_type\":";
  append_json_string(out, "roo:" + std::string(string_member(row, "kind").value_or("row")));
  for (const auto& m : row.GetObject()) {
    const std::string_view key(m.name.GetString(), m.name.GetStringLength());
    if (key == "source" && m.value.IsObject()) {
      for (const auto& s : m.value.GetObject())
        put_field(out, "source_", std::string_view(s.name.GetString(), s.name.GetStringLength()), s.value);
    } else {
      put_field(out, is_event_key(key) ? "row_" : "", key, m.value);
    }
  }
  out += '}';
  return true;
}

std::unique_ptr<CountingWriter> make_timesketch_writer(const std::filesystem::path& out_file) {
  return std::make_unique<TimesketchWriter>(out_file);
}

}  // namespace roo
