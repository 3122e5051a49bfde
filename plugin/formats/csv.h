// The two CSV outputs, both RFC 4180 (cells quoted when needed, records ended by CRLF) and both safe to open in a
// spreadsheet:
//   l2t.csv   log2timeline's l2tcsv: the 17 fixed fields, one line per timed row, date and time in --tz
//   rows.csv  every row, every field: fixed columns (rows_csv_columns) plus an `extra` JSON column
// docs/output-formats.md describes both column by column.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "plugin/formats/output_file.h"

namespace roo {

class DisplayZone;

// One cell as written. First neutralised: a value starting with '=', '+', '-', '@', tab or CR gets a "'" in front,
// so no spreadsheet reads it as a formula (or a DDE call), unless the value is a plain decimal number ("-1",
// "-0.25", "1e-3") or the lone "-" (l2tcsv's "no value"), which no spreadsheet executes. NUL bytes become U+FFFD
// (spreadsheets cut a cell at NUL). Then quoted (RFC 4180) when it holds '"', ',', CR or LF, with '"' doubled.
std::string csv_cell(std::string_view value);
// The cells joined by ',' and ended by CRLF.
std::string csv_record(const std::vector<std::string>& cells);

// l2tcsv's header: date,time,timezone,MACB,source,sourcetype,type,user,host,short,desc,version,filename,inode,notes,
// format,extra.
const std::vector<std::string>& l2tcsv_header();
// One l2tcsv line as plaso's l2tcsv output module writes it (plaso/output/l2t_csv.py, shared_dsv.py): the fields
// joined by commas, unquoted, each comma inside a field made a space (its field sanitiser), LF at the end. Two
// differences, each so that a line stays one safe record: a line break or a NUL inside a field (plaso leaves them)
// becomes a space or '?', and a field a spreadsheet would run as a formula gets a leading ' (as rows.csv's cells).
std::string l2tcsv_line(const std::vector<std::string>& fields);
// plaso's short message (formatters' GetMessageShort): the message, or when longer than 80 characters its first 77
// and "...". Characters are code points, as Python counts them.
std::string l2tcsv_short(std::string_view desc);
// The 17 values for one row (not yet made cells), or none when the row has no time_utc.
std::optional<std::vector<std::string>> l2tcsv_fields(const rapidjson::Value& row, const DisplayZone& zone);
// How long short and desc may get before they are shortened ("…"); rows.csv keeps the whole text.
inline constexpr size_t kL2tDescBytes = 2000;

// rows.csv's columns, in order: display_time, display_utc_offset, display_time_zone (the row's time in --tz),
// the row contract's common fields (schema … text), every known kind-specific field in alphabetical order,
// source_<key> for the provenance fields in contract order, native, extra.
const std::vector<std::string>& rows_csv_columns();
// The values for one row, one per column (not yet made cells).
std::vector<std::string> rows_csv_fields(const rapidjson::Value& row, const DisplayZone& zone);
// Appends csv_record(rows_csv_fields(row, zone)) to line: the same bytes, made without a string per column.
void append_rows_csv_record(std::string& line, const rapidjson::Value& row, const DisplayZone& zone);

std::unique_ptr<CountingWriter> make_l2tcsv_writer(const std::filesystem::path& out_file, const DisplayZone& zone);
std::unique_ptr<CountingWriter> make_rows_csv_writer(const std::filesystem::path& out_file, const DisplayZone& zone);

}  // namespace roo
