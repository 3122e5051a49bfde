#include "plugin/formats/timesketch.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "plugin/formats/display_time.h"
#include "plugin/formats/row_fields.h"

namespace roo {

namespace {

using JsonWriter = rapidjson::Writer<rapidjson::StringBuffer>;

void put_string(JsonWriter& w, std::string_view s) {
  w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
}

bool is_event_key(std::string_view key) {
  return key == "message" || key == "datetime" || key == "timestamp" || key == "timestamp_desc" || key == "data_type";
}

// One row field as an event attribute: scalars as they are, objects and arrays as their JSON text.
void put_field(JsonWriter& w, const std::string& key, const rapidjson::Value& value) {
  if (value.IsNull()) return;  // absent and null say the same in a timeline: nothing recorded
  put_string(w, key);
  if (value.IsObject() || value.IsArray())
    put_string(w, json_text(value));
  else
    value.Accept(w);
}

class TimesketchWriter : public CountingWriter {
 public:
  explicit TimesketchWriter(const std::filesystem::path& out_file) : out_(out_file) {
    left_out_reason_ = "no time (time_utc null): a Timesketch event needs a datetime";
  }
  void row(const rapidjson::Value& row, std::string_view) override {
    if (auto line = timesketch_line(row)) {
      *line += '\n';
      out_.write(*line);
      ++written_;
    } else {
      ++left_out_;
    }
  }
  bool finish(std::string* error) override { return out_.close(error); }

 private:
  OutputFile out_;
};

}  // namespace

std::optional<std::string> timesketch_line(const rapidjson::Value& row) {
  const auto time_utc = string_member(row, "time_utc");
  const auto ms = time_utc ? epoch_ms_from_row_time(*time_utc) : std::nullopt;
  if (!ms) return std::nullopt;
  rapidjson::StringBuffer buf;
  JsonWriter w(buf);
  w.StartObject();
  put_string(w, "message");
  put_string(w, row_message(row, kTimesketchMessageBytes));
  put_string(w, "datetime");
  // time_utc is UTC with milliseconds and a "Z"; Timesketch documents the offset form.
  put_string(w, std::string(time_utc->substr(0, time_utc->size() - 1)) + "+00:00");
  put_string(w, "timestamp");
  w.Int64(*ms * 1000);
  put_string(w, "timestamp_desc");
  put_string(w, "Roo " + std::string(string_member(row, "time_source").value_or("none")));
  put_string(w, "data_type");
  put_string(w, "roo:" + std::string(string_member(row, "kind").value_or("row")));
  for (const auto& m : row.GetObject()) {
    const std::string key(m.name.GetString(), m.name.GetStringLength());
    if (key == "source" && m.value.IsObject()) {
      for (const auto& s : m.value.GetObject())
        put_field(w, "source_" + std::string(s.name.GetString(), s.name.GetStringLength()), s.value);
    } else {
      put_field(w, is_event_key(key) ? "row_" + key : key, m.value);
    }
  }
  w.EndObject();
  return std::string(buf.GetString(), buf.GetSize());
}

std::unique_ptr<CountingWriter> make_timesketch_writer(const std::filesystem::path& out_file) {
  return std::make_unique<TimesketchWriter>(out_file);
}

}  // namespace roo
