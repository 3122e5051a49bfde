// The derived formats, byte for byte: every expected value below was written by hand from the format's
// definition (RFC 4180, plaso's l2tcsv, Timesketch's JSONL import, the tz database), never taken from the code.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <stdlib.h>

#include <algorithm>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "plugin/formats/csv.h"
#include "plugin/formats/derive.h"
#include "plugin/formats/display_time.h"
#include "plugin/formats/row_fields.h"
#include "plugin/formats/sqlite_output.h"
#include "plugin/formats/timesketch.h"

#include "core/row.h"

namespace roo {
namespace {

namespace fs = std::filesystem;

rapidjson::Document parse(const std::string& json) {
  rapidjson::Document d;
  d.Parse(json.c_str());
  EXPECT_FALSE(d.HasParseError()) << json;
  return d;
}

std::string read_all(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A scratch directory removed at the end of the test.
struct TempDir {
  fs::path path;
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "roo-formats-XXXXXX").string();
    path = mkdtemp(tmpl.data());
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

// The process runs in UTC, as main.cpp pins it; opening a zone must leave it so (DisplayZoneLeavesTheProcessZoneAlone).
class Formats : public ::testing::Test {
 protected:
  void SetUp() override {
    setenv("TZ", "UTC", 1);
    tzset();
  }
};

// A command row with a comma and a newline in its text, a negative exit code, an object field, and a deleted
// source: 2026-03-01T02:22:45.639Z is 1772331765.639 s after the epoch (`date -u -d 2026-03-01T02:22:45Z +%s`).
const char* const kCommandRow =
    R"({"schema":"roo-ingest/row/1","row_id":"0123456789abcdef0123456789abcdef","kind":"command",)"
    R"("time_utc":"2026-03-01T02:22:45.639Z","time_source":"api.ts","agent":"roo-code","surface":"vscode",)"
    R"("user":"alice","session_id":"s1","parent_session_id":null,"root_session_id":null,)"
    R"("project_path":"/home/alice/proj","role":"assistant","text":"npm test,\nthen lint",)"
    R"("tool_name":"execute_command","exit_code":-1,"tool_input":{"command":"npm test"},)"
    R"("source":{"evidence":"demo.E01","partition_offset":1048576,"fs_type":"ext4",)"
    R"("path":"/home/alice/x/api_conversation_history.json","inode":42,"recovery":"deleted","sha256":null,)"
    R"("record_index":3}})";

// ---- CSV cells -------------------------------------------------------------------------------------------------

TEST_F(Formats, CsvCellLeavesPlainTextAlone) {
  EXPECT_EQ(csv_cell("plain text"), "plain text");
  EXPECT_EQ(csv_cell(""), "");
  EXPECT_EQ(csv_cell("it's"), "it's");
}

TEST_F(Formats, CsvCellQuotesWhatRfc4180Requires) {
  EXPECT_EQ(csv_cell("a,b"), "\"a,b\"");
  EXPECT_EQ(csv_cell("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(csv_cell("line1\nline2"), "\"line1\nline2\"");
  EXPECT_EQ(csv_cell("line1\r\nline2"), "\"line1\r\nline2\"");
  EXPECT_EQ(csv_cell("Grüße, 世界"), "\"Grüße, 世界\"");
  EXPECT_EQ(csv_cell("Grüße 世界 🙂"), "Grüße 世界 🙂");
}

TEST_F(Formats, CsvCellNeutralisesFormulaStarts) {
  EXPECT_EQ(csv_cell("=1+2"), "'=1+2");
  EXPECT_EQ(csv_cell("+cmd"), "'+cmd");
  EXPECT_EQ(csv_cell("-2+3+cmd|' /C calc'!A0"), "'-2+3+cmd|' /C calc'!A0");
  EXPECT_EQ(csv_cell("@SUM(A1:A9)"), "'@SUM(A1:A9)");
  EXPECT_EQ(csv_cell("\t=1"), "'\t=1");
  EXPECT_EQ(csv_cell("\r=1"), "\"'\r=1\"");  // neutralised, then quoted for the CR
  EXPECT_EQ(csv_cell("=HYPERLINK(\"http://x\",\"y\")"), "\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\"");
  EXPECT_EQ(csv_cell("=Grüße"), "'=Grüße");
  EXPECT_EQ(csv_cell("-05:00"), "'-05:00");
  EXPECT_EQ(csv_cell("-1+2"), "'-1+2");
  EXPECT_EQ(csv_cell("-.5"), "'-.5");  // not how JSON writes a number
  // Only at the start: inside a cell these characters are text to every spreadsheet.
  EXPECT_EQ(csv_cell("a=1"), "a=1");
}

TEST_F(Formats, CsvCellKeepsNumbersAndTheL2tPlaceholder) {
  EXPECT_EQ(csv_cell("-1"), "-1");
  EXPECT_EQ(csv_cell("-0.25"), "-0.25");
  EXPECT_EQ(csv_cell("-1e-05"), "-1e-05");
  EXPECT_EQ(csv_cell("-"), "-");
}

TEST_F(Formats, CsvCellReplacesNul) {
  EXPECT_EQ(csv_cell(std::string("a\0b", 3)),
            "a\xEF\xBF\xBD"
            "b");
}

TEST_F(Formats, CsvRecordJoinsAndEndsWithCrlf) {
  EXPECT_EQ(csv_record({"a", "b,c", "", "=x"}), "a,\"b,c\",,'=x\r\n");
}

// ---- display_time ------------------------------------------------------------------------------------------------

TEST_F(Formats, RowTimeToEpochMs) {
  EXPECT_EQ(epoch_ms_from_row_time("2026-03-01T02:22:45.639Z"), 1772331765639);
  EXPECT_EQ(epoch_ms_from_row_time("1970-01-01T00:00:00.000Z"), 0);
  EXPECT_EQ(epoch_ms_from_row_time("1969-12-31T23:59:59.999Z"), -1);
  EXPECT_EQ(epoch_ms_from_row_time("2024-02-29T00:00:00.000Z"), 1709164800000);
  EXPECT_EQ(epoch_ms_from_row_time("10000-01-01T00:00:00.000Z"), 253402300800000);
  // The ends of JavaScript's Date range (ECMAScript TimeClip, ±8.64e15 ms) are times; one millisecond past them,
  // or the year 296675 a ts of 9.3e15 would be, is none (docs/row-contract.md).
  EXPECT_EQ(epoch_ms_from_row_time("275760-09-13T00:00:00.000Z"), 8640000000000000);
  EXPECT_EQ(epoch_ms_from_row_time("-271821-04-20T00:00:00.000Z"), -8640000000000000);
  EXPECT_EQ(epoch_ms_from_row_time("275760-09-13T00:00:00.001Z"), std::nullopt);
  EXPECT_EQ(epoch_ms_from_row_time("-271821-04-19T23:59:59.999Z"), std::nullopt);
  EXPECT_EQ(epoch_ms_from_row_time("296675-01-01T00:00:00.000Z"), std::nullopt);
  EXPECT_EQ(epoch_ms_from_row_time("-296675-01-01T00:00:00.000Z"), std::nullopt);
  for (const char* bad :
       {"2026-02-29T00:00:00.000Z", "2026-03-01T02:22:45Z", "2026-03-01 02:22:45.639Z", "2026-03-01T02:22:45.639",
        "2026-13-01T00:00:00.000Z", "2026-03-01T24:00:00.000Z", "26-03-01T02:22:45.639Z", "", "null"})
    EXPECT_EQ(epoch_ms_from_row_time(bad), std::nullopt) << bad;
}

// A row time as a zone shows it: "2026-03-29 03:00:00.000 UTC+02:00 CEST".
std::string show(const DisplayZone& z, const char* iso) {
  auto t = z.at(std::string_view(iso));
  return t ? t->date_iso() + " " + t->time_hms_ms() + " " + t->utc_offset() + " " + t->zone_abbreviation : "none";
}

TEST_F(Formats, DisplayTimeBerlinAndNewYork) {
  std::string error;
  {
    auto berlin = DisplayZone::open("Europe/Berlin", &error);
    ASSERT_TRUE(berlin) << error;
    auto t = berlin->at(std::string_view("2026-03-01T02:22:45.639Z"));
    ASSERT_TRUE(t);
    EXPECT_EQ(t->date_iso(), "2026-03-01");
    EXPECT_EQ(t->date_mdy(), "03/01/2026");
    EXPECT_EQ(t->time_hms(), "03:22:45");
    EXPECT_EQ(t->time_hms_ms(), "03:22:45.639");
    EXPECT_EQ(t->utc_offset(), "UTC+01:00");
    EXPECT_EQ(t->zone_abbreviation, "CET");
  }
  {
    auto new_york = DisplayZone::open("America/New_York", &error);
    ASSERT_TRUE(new_york) << error;
    auto t = new_york->at(std::string_view("2026-03-01T02:22:45.639Z"));
    ASSERT_TRUE(t);
    EXPECT_EQ(t->date_iso(), "2026-02-28");  // the day before
    EXPECT_EQ(t->time_hms_ms(), "21:22:45.639");
    EXPECT_EQ(t->utc_offset(), "UTC-05:00");
    EXPECT_EQ(t->zone_abbreviation, "EST");
  }
}

// Summer time starts on the last Sunday of March in Berlin (2026-03-29, 01:00 UTC) and on the second Sunday of
// March in New York (2026-03-08, 07:00 UTC); New York falls back on 2026-11-01 at 06:00 UTC, so 01:30 happens twice.
TEST_F(Formats, DisplayTimeAcrossDaylightSavingChanges) {
  std::string error;
  {
    auto berlin = DisplayZone::open("Europe/Berlin", &error);
    ASSERT_TRUE(berlin) << error;
    EXPECT_EQ(show(*berlin, "2026-03-29T00:59:59.999Z"), "2026-03-29 01:59:59.999 UTC+01:00 CET");
    EXPECT_EQ(show(*berlin, "2026-03-29T01:00:00.000Z"), "2026-03-29 03:00:00.000 UTC+02:00 CEST");
  }
  {
    auto new_york = DisplayZone::open("America/New_York", &error);
    ASSERT_TRUE(new_york) << error;
    EXPECT_EQ(show(*new_york, "2026-03-08T06:59:59.000Z"), "2026-03-08 01:59:59.000 UTC-05:00 EST");
    EXPECT_EQ(show(*new_york, "2026-03-08T07:00:00.000Z"), "2026-03-08 03:00:00.000 UTC-04:00 EDT");
    EXPECT_EQ(show(*new_york, "2026-11-01T05:30:00.000Z"), "2026-11-01 01:30:00.000 UTC-04:00 EDT");
    EXPECT_EQ(show(*new_york, "2026-11-01T06:30:00.000Z"), "2026-11-01 01:30:00.000 UTC-05:00 EST");
  }
  {
    auto kolkata = DisplayZone::open("Asia/Kolkata", &error);
    ASSERT_TRUE(kolkata) << error;
    EXPECT_EQ(show(*kolkata, "2026-03-01T02:22:45.639Z"), "2026-03-01 07:52:45.639 UTC+05:30 IST");
  }
  {
    auto utc = DisplayZone::open("UTC", &error);
    ASSERT_TRUE(utc) << error;
    EXPECT_EQ(show(*utc, "1969-12-31T23:59:59.999Z"), "1969-12-31 23:59:59.999 UTC+00:00 UTC");
  }
}

// The zone's rules come from the time-zone library, not from the process's TZ: while a Berlin zone is open the
// process still runs in UTC (libtsk's FAT times depend on it), also on another thread.
TEST_F(Formats, DisplayZoneLeavesTheProcessZoneAlone) {
  std::string error;
  auto berlin = DisplayZone::open("Europe/Berlin", &error);
  ASSERT_TRUE(berlin) << error;
  ASSERT_NE(std::getenv("TZ"), nullptr);
  EXPECT_STREQ(std::getenv("TZ"), "UTC");
  std::time_t zero = 0;
  std::tm tm{};
  localtime_r(&zero, &tm);
  EXPECT_EQ(tm.tm_hour, 0);
  auto t = berlin->at(int64_t{0});
  ASSERT_TRUE(t);
  EXPECT_EQ(t->time_hms(), "01:00:00");  // 1970-01-01T00:00:00Z in Berlin
  std::string on_thread;
  std::thread([&] {
    auto u = berlin->at(int64_t{0});
    on_thread = u ? u->time_hms() + " " + u->zone_abbreviation : "none";
  }).join();
  EXPECT_EQ(on_thread, "01:00:00 CET");
}

// Expected values from `TZ=<zone> date -d @<seconds> '+%F %T %z %Z'` (glibc) and python3's zoneinfo, written here
// by hand; the seconds from `date -u -d <time> +%s`.
TEST_F(Formats, DisplayTimeHalfHourOffsetsAndHistoricalChanges) {
  std::string error;
  auto zone = [&](const char* name) {
    auto z = DisplayZone::open(name, &error);
    EXPECT_TRUE(z) << error;
    return z;
  };
  // Adelaide: UTC+09:30, summer time +10:30 until the first Sunday of April (2026-04-05 03:00 local).
  auto adelaide = zone("Australia/Adelaide");
  ASSERT_TRUE(adelaide);
  EXPECT_EQ(show(*adelaide, "2026-04-04T16:29:59.000Z"), "2026-04-05 02:59:59.000 UTC+10:30 ACDT");
  EXPECT_EQ(show(*adelaide, "2026-04-04T16:30:00.000Z"), "2026-04-05 02:00:00.000 UTC+09:30 ACST");
  auto kathmandu = zone("Asia/Kathmandu");  // UTC+05:45, abbreviated by its offset
  ASSERT_TRUE(kathmandu);
  EXPECT_EQ(show(*kathmandu, "2026-03-01T02:22:45.000Z"), "2026-03-01 08:07:45.000 UTC+05:45 +0545");
  // Berlin kept local mean time (+00:53:28) until 1893-04-01 00:00 CET.
  auto berlin = zone("Europe/Berlin");
  ASSERT_TRUE(berlin);
  EXPECT_EQ(show(*berlin, "1893-03-31T23:06:31.000Z"), "1893-03-31 23:59:59.000 UTC+00:53:28 LMT");
  EXPECT_EQ(show(*berlin, "1893-03-31T23:06:32.000Z"), "1893-04-01 00:06:32.000 UTC+01:00 CET");
  // Moscow left its all-year UTC+04:00 for UTC+03:00 on 2014-10-26 at 02:00 local.
  auto moscow = zone("Europe/Moscow");
  ASSERT_TRUE(moscow);
  EXPECT_EQ(show(*moscow, "2014-10-25T21:59:59.000Z"), "2014-10-26 01:59:59.000 UTC+04:00 MSK");
  EXPECT_EQ(show(*moscow, "2014-10-25T22:00:00.000Z"), "2014-10-26 01:00:00.000 UTC+03:00 MSK");
}

// After a zone file's last transition (2037 in Debian's tzdata) its closing POSIX rule holds (eggert/tz tzfile.5,
// 2025b). Expected values from glibc and python3's zoneinfo, as above.
TEST_F(Formats, DisplayTimeAfter2037FollowsTheZoneFilesRule) {
  std::string error;
  auto berlin = DisplayZone::open("Europe/Berlin", &error);
  ASSERT_TRUE(berlin) << error;
  EXPECT_EQ(show(*berlin, "2040-03-25T00:59:59.000Z"), "2040-03-25 01:59:59.000 UTC+01:00 CET");
  EXPECT_EQ(show(*berlin, "2040-03-25T01:00:00.000Z"), "2040-03-25 03:00:00.000 UTC+02:00 CEST");
  EXPECT_EQ(show(*berlin, "12026-07-01T12:00:00.000Z"), "12026-07-01 14:00:00.000 UTC+02:00 CEST");
  auto new_york = DisplayZone::open("America/New_York", &error);
  ASSERT_TRUE(new_york) << error;
  EXPECT_EQ(show(*new_york, "2100-11-07T05:59:59.000Z"), "2100-11-07 01:59:59.000 UTC-04:00 EDT");
  EXPECT_EQ(show(*new_york, "2100-11-07T06:00:00.000Z"), "2100-11-07 01:00:00.000 UTC-05:00 EST");
  // Nuuk's rule "<-02>2<-01>,M3.5.0/-1,M10.5.0/0" changes at -1:00, the Saturday before at 23:00.
  auto nuuk = DisplayZone::open("America/Nuuk", &error);
  ASSERT_TRUE(nuuk) << error;
  EXPECT_EQ(show(*nuuk, "2050-03-27T00:59:59.000Z"), "2050-03-26 22:59:59.000 UTC-02:00 -02");
  EXPECT_EQ(show(*nuuk, "2050-03-27T01:00:00.000Z"), "2050-03-27 00:00:00.000 UTC-01:00 -01");
  EXPECT_EQ(show(*nuuk, "2050-10-30T00:59:59.000Z"), "2050-10-29 23:59:59.000 UTC-01:00 -01");
  EXPECT_EQ(show(*nuuk, "2050-10-30T01:00:00.000Z"), "2050-10-29 23:00:00.000 UTC-02:00 -02");
}

// Every zone of the installed tz database against glibc's own reading of the same file (localtime_r with TZ set
// to it, in this test only), from 1850 to 2200: offsets and abbreviations agree, before and after 2037.
TEST_F(Formats, DisplayTimeAgreesWithGlibcInEveryZone) {
  std::vector<std::string> names;
  for (const auto& entry : fs::recursive_directory_iterator(kZoneInfoDir)) {
    const std::string name = entry.path().lexically_relative(kZoneInfoDir).string();
    if (!entry.is_regular_file() || name.rfind("posix", 0) == 0 || name.rfind("right", 0) == 0 || name == "Factory")
      continue;
    std::string error;
    if (time_zone_exists(name, &error)) names.push_back(name);
  }
  ASSERT_GT(names.size(), 300u);  // tzdata has some 600 names
  int zones_differing = 0;
  for (const std::string& name : names) {
    std::string error;
    auto zone = DisplayZone::open(name, &error);
    ASSERT_TRUE(zone) << name << ": " << error;
    const std::string tz = ":" + std::string(kZoneInfoDir) + "/" + name;
    setenv("TZ", tz.c_str(), 1);
    tzset();
    int differences = 0;
    // Steps of 13 days 7 h 13 s walk through every hour of the day and every day of the week.
    for (int64_t secs = -3786825600; secs < 7258118400 && differences < 3; secs += 13 * 86400 + 7 * 3600 + 13) {
      const std::time_t t = static_cast<std::time_t>(secs);
      std::tm tm{};
      ASSERT_TRUE(localtime_r(&t, &tm));
      auto d = zone->at(secs * 1000);
      ASSERT_TRUE(d);
      if (d->utc_offset_seconds != tm.tm_gmtoff || d->zone_abbreviation != tm.tm_zone || d->hour != tm.tm_hour ||
          d->day != tm.tm_mday) {
        ADD_FAILURE() << name << " at " << secs << ": glibc " << tm.tm_gmtoff << " " << tm.tm_zone << ", DisplayZone "
                      << d->utc_offset_seconds << " " << d->zone_abbreviation;
        ++differences;
      }
    }
    zones_differing += differences > 0;
  }
  setenv("TZ", "UTC", 1);
  tzset();
  EXPECT_EQ(zones_differing, 0);
}

TEST_F(Formats, TimeZoneNamesAreChecked) {
  std::string error;
  EXPECT_TRUE(time_zone_exists("UTC", &error));
  EXPECT_TRUE(time_zone_exists("Europe/Berlin", &error));
  for (const char* bad :
       {"Mars/Olympus", "Europe", "zone.tab", "../../../etc/passwd", "/etc/localtime", "", "Europe/Berlin;rm"}) {
    error.clear();
    EXPECT_FALSE(time_zone_exists(bad, &error)) << bad;
    EXPECT_NE(error.find(std::string("--tz ") + bad + ":"), std::string::npos) << error;
  }
  EXPECT_EQ(DisplayZone::open("Mars/Olympus", &error), nullptr);
}

// ---- l2tcsv ------------------------------------------------------------------------------------------------------

TEST_F(Formats, L2tHeaderIsPlasos) {
  std::string header;
  for (const std::string& h : l2tcsv_header()) header += (header.empty() ? "" : ",") + h;
  EXPECT_EQ(header,
            "date,time,timezone,MACB,source,sourcetype,type,user,host,short,desc,version,filename,inode,"
            "notes,format,extra");
}

TEST_F(Formats, L2tLineOfACommandInBerlin) {
  std::string error;
  auto berlin = DisplayZone::open("Europe/Berlin", &error);
  ASSERT_TRUE(berlin) << error;
  auto fields = l2tcsv_fields(parse(kCommandRow), *berlin);
  ASSERT_TRUE(fields);
  ASSERT_EQ(fields->size(), 17u);
  // plaso's l2tcsv: the zone's abbreviation, commas inside a field made spaces, no quotes, LF
  EXPECT_EQ(l2tcsv_line(*fields),
            "03/01/2026,03:22:45,CET,....,LOG,Roo Code command,Roo api.ts,alice,-,"
            "command: npm test  then lint,command: npm test  then lint,2,"
            "/home/alice/x/api_conversation_history.json,42,recovery: deleted,roo_ingest,"
            "exit_code: -1; project_path: /home/alice/proj; role: assistant; "
            "row_id: 0123456789abcdef0123456789abcdef; session_id: s1; source_evidence: demo.E01; "
            "source_fs_type: ext4; source_partition_offset: 1048576; source_record_index: 3; "
            "source_recovery: deleted; surface: vscode; tool_name: execute_command\n");
}

TEST_F(Formats, L2tMarksFileTimesAndSkipsUntimedRows) {
  std::string error;
  auto utc = DisplayZone::open("UTC", &error);
  ASSERT_TRUE(utc);
  auto mtime = l2tcsv_fields(
      parse(R"({"kind":"permission_setting","time_utc":"2025-10-09T08:53:20.000Z","time_source":"file.mtime",)"
            R"("user":null,"text":"=cmd","source":{"path":"/s.json","inode":null,"recovery":"allocated"}})"),
      *utc);
  ASSERT_TRUE(mtime);
  EXPECT_EQ(
      l2tcsv_line(*mtime),
      "10/09/2025,08:53:20,UTC,M...,LOG,Roo Code permission_setting,Roo file.mtime,-,-,"
      "permission_setting: =cmd,permission_setting: =cmd,2,/s.json,-,-,roo_ingest,source_recovery: allocated\n");
  EXPECT_EQ(l2tcsv_fields(parse(R"({"kind":"cli_history","time_utc":null,"time_source":"none","text":"x"})"), *utc),
            std::nullopt);
}

// plaso's short message: more than 80 characters (code points, as Python's len counts) become the first 77 and "...".
TEST_F(Formats, L2tShortIsPlasosEightyCharacters) {
  const std::string eighty(80, 'x');
  EXPECT_EQ(l2tcsv_short(eighty), eighty);
  std::string accents;
  for (int i = 0; i < 81; ++i) accents += "é";  // 81 characters, 162 bytes
  std::string first77;
  for (int i = 0; i < 77; ++i) first77 += "é";
  EXPECT_EQ(l2tcsv_short(accents), first77 + "...");
  EXPECT_EQ(l2tcsv_short(accents.substr(0, 160)), accents.substr(0, 160));  // 80 characters are kept whole
}

// The line plaso's l2tcsv module writes for an event with these values, worked out by hand from
// plaso/output/l2t_csv.py and shared_dsv.py: MM/DD/YYYY and HH:MM:SS in the output zone, tzname() (CEST in
// summer), '-' for no value, every ',' a space, fields joined by ',' and the line ended by '\n'.
TEST_F(Formats, L2tLineFieldByFieldAsPlasoWritesIt) {
  std::string error;
  auto berlin = DisplayZone::open("Europe/Berlin", &error);
  ASSERT_TRUE(berlin) << error;
  auto fields = l2tcsv_fields(
      parse(R"({"kind":"user_message","time_utc":"2026-07-01T10:00:00.000Z","time_source":"ui.ts","user":"bob",)"
            R"("text":"Please add tests for parse(), format() and the CLI, then run them all, twice, in CI, okay?",)"
            R"("source":{"path":"/Users/bob/ui_messages.json","inode":7,"recovery":"allocated"}})"),
      *berlin);
  ASSERT_TRUE(fields);
  const std::string line = l2tcsv_line(*fields);
  ASSERT_EQ(line.back(), '\n');
  std::vector<std::string> got;
  size_t start = 0;
  for (size_t comma; (comma = line.find(',', start)) != std::string::npos; start = comma + 1)
    got.push_back(line.substr(start, comma - start));
  got.push_back(line.substr(start, line.size() - 1 - start));
  const std::string desc =
      "user_message: Please add tests for parse()  format() and the CLI  then run them all  twice  in CI  okay?";
  const std::vector<std::string> plaso = {
      "07/01/2026", "12:00:00", "CEST", "....", "LOG", "Roo Code user_message", "Roo ui.ts",
      "bob", "-", desc.substr(0, 77) + "...", desc, "2", "/Users/bob/ui_messages.json", "7", "-", "roo_ingest"};
  ASSERT_EQ(got.size(), 17u) << line;
  // MACB "....": a time recorded inside the data, not a file time (docs/output-formats.md)
  for (size_t i = 0; i < plaso.size(); ++i) EXPECT_EQ(got[i], plaso[i]) << "field " << l2tcsv_header()[i];
  EXPECT_EQ(got[16], "source_recovery: allocated");  // extra: the fields the other 16 do not show
}

// ---- Timesketch --------------------------------------------------------------------------------------------------

TEST_F(Formats, TimesketchLineShape) {
  auto line = timesketch_line(
      parse(R"({"schema":"roo-ingest/row/1","kind":"user_message","time_utc":"2026-03-01T02:22:45.639Z",)"
            R"("time_source":"ui.ts","session_id":null,"text":"Fix\nthe  bug","message":"m","hunks":[{"a":1}],)"
            R"("cost_usd":0.0999,"partial":true,"source":{"path":"/p","inode":7,"sha256":null      }})"));
  ASSERT_TRUE(line);
  EXPECT_EQ(*line, R"({"message":"user_message: Fix the bug","datetime":"2026-03-01T02:22:45.639+00:00",)"
                   R"("timestamp":1772331765639000,"timestamp_desc":"Roo ui.ts","data_type":"roo:user_message",)"
                   R"("schema":"roo-ingest/row/1","kind":"user_message","time_utc":"2026-03-01T02:22:45.639Z",)"
                   R"("time_source":"ui.ts","text":"Fix\nthe  bug","row_message":"m","hunks":"[{\"a\":1}]",)"
                   R"("cost_usd":0.0999,"partial":true,"source_path":"/p","source_inode":7})");
  EXPECT_EQ(timesketch_line(parse(R"({"kind":"cli_history","time_utc":null,"time_source":"none","text":"x"})")),
            std::nullopt);
}

// A time_utc past JavaScript's last Date is no instant: no event (and no microseconds that overflow an int64).
TEST_F(Formats, TimesketchHasNoEventForATimePastJavaScriptDates) {
  EXPECT_EQ(timesketch_line(parse(R"({"kind":"k","time_utc":"296675-01-01T00:00:00.000Z","time_source":"ui.ts"})")),
            std::nullopt);
}

TEST_F(Formats, MessagesAreShortenedAtCharacterBoundaries) {
  // 'a' and 200 two-byte 'é': the 300-byte limit falls inside an 'é', so 149 of them are kept.
  std::string text = "a";
  for (int i = 0; i < 200; ++i) text += "é";
  rapidjson::Document row = parse(R"({"kind":"k","text":")" + text + R"("})");
  std::string expected = "k: a";
  for (int i = 0; i < 149; ++i) expected += "é";
  EXPECT_EQ(row_message(row, 300), expected + "…");
  EXPECT_EQ(row_message(parse(R"({"kind":"tool_call","text":"","tool_name":"browser_action"})"), 300),
            "tool_call: browser_action");
  EXPECT_EQ(row_message(parse(R"({"kind":"ui_event","text":null})"), 300), "ui_event");
  // A long text of spaces and words: the message is shortened even though the head read shrinks.
  std::string spaced(5000, ' ');
  spaced += "end";
  EXPECT_EQ(row_message(parse(R"({"kind":"k","text":"x)" + spaced + R"("})"), 10), "k: x…");
}

// l2tcsv's extra reads a value only as far as its shown line needs; the result is the whole value made one line and
// shortened. Edges: exactly at the limit, one over, runs of spaces around the limit, trailing spaces, a cut inside
// a two-byte character.
TEST_F(Formats, OneLineShortenedIsShortenOfOneLine) {
  EXPECT_EQ(one_line_shortened("", 5), "");
  EXPECT_EQ(one_line_shortened("  \n\t ", 5), "");
  EXPECT_EQ(one_line_shortened("abcde", 5), "abcde");
  EXPECT_EQ(one_line_shortened("abcdef", 5), "abcde…");
  EXPECT_EQ(one_line_shortened("abcde   ", 5), "abcde");
  EXPECT_EQ(one_line_shortened("abcd    e", 5), "abcd …");
  EXPECT_EQ(one_line_shortened("ab\r\n\r\ncd", 5), "ab cd");
  EXPECT_EQ(one_line_shortened("abcd\xC3\xA9", 5), "abcd…");
  const std::vector<std::string> samples = {"a  b\tc\n\nd   e  f g h i j k l m n o p", "   lead and trail   ",
                                            std::string(300, ' ') + "x", "\xC3\xA9\xC3\xA9  \xC3\xA9\x7F\x01z z z"};
  for (const std::string& s : samples)
    for (size_t n = 0; n < 40; ++n) EXPECT_EQ(one_line_shortened(s, n), shorten(one_line(s), n)) << s << " " << n;
}

// ---- rows.csv ----------------------------------------------------------------------------------------------------

TEST_F(Formats, RowsCsvColumns) {
  const auto& c = rows_csv_columns();
  ASSERT_GT(c.size(), 40u);
  EXPECT_EQ(std::vector<std::string>(c.begin(), c.begin() + 17),
            (std::vector<std::string>{"display_time", "display_utc_offset", "display_time_zone", "schema", "row_id",
                                      "kind", "time_utc", "time_source", "agent", "surface", "user", "session_id",
                                      "parent_session_id", "root_session_id", "project_path", "role", "text"}));
  EXPECT_EQ(c[c.size() - 2], "native");
  EXPECT_EQ(c.back(), "extra");
  auto first_source = std::find(c.begin(), c.end(), "source_evidence");
  ASSERT_NE(first_source, c.end());
  EXPECT_TRUE(std::is_sorted(c.begin() + 17, first_source));  // kind fields, alphabetical
  EXPECT_EQ(*(first_source + 3), "source_pool_volume");  // an APFS volume's, after the file system
  EXPECT_EQ(*(first_source + 4), "source_path");
  EXPECT_EQ(std::set<std::string>(c.begin(), c.end()).size(), c.size());  // no name twice
}

// Every field the row schema names has its own column (a field added to the schema must be added to rows.csv).
TEST_F(Formats, RowsCsvHasAColumnForEverySchemaField) {
  rapidjson::Document schema = parse(read_all(fs::path(ROO_DOCS_DIR) / "row.schema.json"));
  const auto& c = rows_csv_columns();
  for (const auto& p : schema["properties"].GetObject()) {
    std::string name = p.name.GetString();
    if (name == "source") continue;  // its fields are source_<key>
    EXPECT_NE(std::find(c.begin(), c.end(), name), c.end()) << name;
  }
}

TEST_F(Formats, RowsCsvValues) {
  std::string error;
  auto berlin = DisplayZone::open("Europe/Berlin", &error);
  ASSERT_TRUE(berlin);
  rapidjson::Document row = parse(kCommandRow);
  row.AddMember("brand_new_field", rapidjson::Value(1), row.GetAllocator());
  const auto values = rows_csv_fields(row, *berlin);
  const auto& c = rows_csv_columns();
  ASSERT_EQ(values.size(), c.size());
  auto at = [&](const char* name) { return values[std::find(c.begin(), c.end(), name) - c.begin()]; };
  EXPECT_EQ(at("display_time"), "2026-03-01 03:22:45.639");
  EXPECT_EQ(at("display_utc_offset"), "UTC+01:00");
  EXPECT_EQ(at("display_time_zone"), "Europe/Berlin");
  EXPECT_EQ(at("time_utc"), "2026-03-01T02:22:45.639Z");
  EXPECT_EQ(at("text"), "npm test,\nthen lint");
  EXPECT_EQ(at("parent_session_id"), "");
  EXPECT_EQ(at("exit_code"), "-1");
  EXPECT_EQ(at("tool_input"), R"({"command":"npm test"})");
  EXPECT_EQ(at("source_inode"), "42");
  EXPECT_EQ(at("source_sha256"), "");
  EXPECT_EQ(at("source_recovery"), "deleted");
  EXPECT_EQ(at("command_status"), "");
  EXPECT_EQ(at("native"), "");
  EXPECT_EQ(at("extra"), R"({"brand_new_field":1})");
  // An untimed row has no display time.
  const auto untimed = rows_csv_fields(parse(R"({"kind":"cli_history","time_utc":null,"text":"x"})"), *berlin);
  EXPECT_EQ(untimed[0], "");
  EXPECT_EQ(untimed[2], "");
}

// ---- SQLite ------------------------------------------------------------------------------------------------------

// Runs a query and returns its rows, "|"-joined per row and "\n" after each.
std::string query(sqlite3* db, const std::string& sql) {
  std::string out;
  sqlite3_stmt* s = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &s, nullptr), SQLITE_OK) << sqlite3_errmsg(db) << ": " << sql;
  while (sqlite3_step(s) == SQLITE_ROW) {
    for (int i = 0; i < sqlite3_column_count(s); ++i) {
      const unsigned char* t = sqlite3_column_text(s, i);
      if (i) out += '|';
      out += t ? reinterpret_cast<const char*>(t) : "NULL";
    }
    out += "\n";
  }
  sqlite3_finalize(s);
  return out;
}

TEST_F(Formats, SqliteSchemaAndRows) {
  TempDir dir;
  const fs::path file = dir.path / "roo.sqlite";
  FormatContext ctx;
  ctx.display_tz = "Europe/Berlin";
  ctx.tool_version = "9.9.9";
  ctx.report_json = R"({"tool":"roo-ingest","row_schema":"roo-ingest/row/1","command_line":["roo-ingest","demo.E01"],)"
                    R"("evidence":{"kind":"image","paths":["/cases/demo.E01"],"image_type":"ewf","size_bytes":1000,)"
                    R"("sector_size":512,"segments":["/cases/demo.E01"],"stored_hashes":{"md5":"abc"}},)"
                    R"("partitions":[{"index":2,"offset_bytes":1048576,"length_bytes":4096,"description":"Linux",)"
                    R"("volume_system":"dos","kind":"allocated","status":"parsed","fs_type":"ext4"}]})";
  const std::string second =
      R"({"row_id":"ffff","kind":"cli_history","time_utc":null,"session_id":null,"user":"bob",)"
      R"("source":{"evidence":"demo.E01","partition_offset":1048576,"fs_type":"ext4",)"
      R"("path":"/home/alice/x/api_conversation_history.json","inode":42,"recovery":"deleted","sha256":null,)"
      R"("record_index":4}})";
  const std::string third = R"({"row_id":"eeee","kind":"x","source":{"path":"/other","recovery":"allocated"}})";
  {
    auto writer = make_sqlite_writer(file, ctx);
    for (const std::string& line : {std::string(kCommandRow), second, third}) writer->row(parse(line), line);
    std::string error;
    ASSERT_TRUE(writer->finish(&error)) << error;
    EXPECT_EQ(writer->rows_written(), 3);
  }
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open_v2(file.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  EXPECT_EQ(query(db, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"),
            "evidence\npartitions\nrows\nrun\nsources\n");
  const std::string indexes = query(db, "SELECT name FROM sqlite_master WHERE type = 'index' ORDER BY name");
  for (const char* ix : {"rows_kind", "rows_time_utc", "rows_session_id", "rows_project_path", "rows_recovery",
                         "rows_user", "rows_surface"})
    EXPECT_NE(indexes.find(std::string(ix) + "\n"), std::string::npos) << ix;
  EXPECT_EQ(query(db, "PRAGMA user_version"), "1\n");
  EXPECT_EQ(query(db,
                  "SELECT row_number, kind, time_utc, session_id, project_path, user, surface, recovery, "
                  "source_id FROM rows ORDER BY row_number"),
            "1|command|2026-03-01T02:22:45.639Z|s1|/home/alice/proj|alice|vscode|deleted|1\n"
            "2|cli_history|NULL|NULL|NULL|bob|NULL|deleted|1\n"
            "3|x|NULL|NULL|NULL|NULL|NULL|allocated|2\n");
  EXPECT_EQ(query(db, "SELECT row_json FROM rows WHERE row_number = 2"), second + "\n");
  EXPECT_EQ(query(db, "SELECT json_extract(row_json, '$.exit_code') FROM rows WHERE kind = 'command'"), "-1\n");
  EXPECT_EQ(query(db,
                  "SELECT source_id, evidence, partition_offset, fs_type, path, inode, recovery, sha256 "
                  "FROM sources ORDER BY source_id"),
            "1|demo.E01|1048576|ext4|/home/alice/x/api_conversation_history.json|42|deleted|NULL\n"
            "2|NULL|NULL|NULL|/other|NULL|allocated|NULL\n");
  EXPECT_EQ(query(db, "SELECT evidence_id, kind, paths, image_type, size_bytes, stored_md5, stored_sha1 FROM evidence"),
            "demo.E01|image|[\"/cases/demo.E01\"]|ewf|1000|abc|NULL\n");
  EXPECT_EQ(query(db, "SELECT partition_index, offset_bytes, status, fs_type FROM partitions"),
            "2|1048576|parsed|ext4\n");
  EXPECT_EQ(query(db, "SELECT tool, version, command_line, display_time_zone, report_json = '" + ctx.report_json +
                          "' FROM run"),
            "roo-ingest|9.9.9|[\"roo-ingest\",\"demo.E01\"]|Europe/Berlin|1\n");
  // The indexes are used: a query by session does not scan the table.
  EXPECT_NE(query(db, "EXPLAIN QUERY PLAN SELECT * FROM rows WHERE session_id = 's1'").find("rows_session_id"),
            std::string::npos);
  sqlite3_close(db);
}

TEST_F(Formats, SqliteReportsAFileItCannotWrite) {
  TempDir dir;
  FormatContext ctx;
  auto writer = make_sqlite_writer(dir.path / "missing-dir" / "roo.sqlite", ctx);
  writer->row(parse(kCommandRow), kCommandRow);
  std::string error;
  EXPECT_FALSE(writer->finish(&error));
  EXPECT_NE(error.find("roo.sqlite"), std::string::npos) << error;
}

// ---- derive ------------------------------------------------------------------------------------------------------

TEST_F(Formats, FormatListIsChecked) {
  std::string error;
  EXPECT_EQ(parse_format_list("timesketch, csv", &error), (std::set<std::string>{"timesketch", "csv"}));
  EXPECT_EQ(parse_format_list("all", &error)->size(), 8u);
  EXPECT_EQ(parse_format_list("csv,xlsx", &error), std::nullopt);
  EXPECT_NE(error.find("\"xlsx\""), std::string::npos) << error;
  EXPECT_NE(error.find("timesketch"), std::string::npos) << error;  // says what is known
  EXPECT_EQ(parse_format_list(" , ", &error), std::nullopt);
}

// One pass over a rows.jsonl with a timed row, an untimed row and a damaged line writes every selected format,
// counts what each left out, and leaves the process's zone UTC.
TEST_F(Formats, DeriveWritesTheSelectedFormats) {
  TempDir dir;
  const fs::path rows = dir.path / "rows.jsonl";
  {
    std::ofstream out(rows, std::ios::binary);
    out << kCommandRow << "\n"
        << R"({"kind":"cli_history","time_utc":null,"time_source":"none","text":"=1+1","source":null})"
        << "\n"
        << R"({"kind":"cut off)"
        << "\n";
  }
  FormatContext ctx;
  ctx.display_tz = "America/New_York";
  DeriveResult result;
  std::string error;
  ASSERT_TRUE(derive_outputs(rows, dir.path, {"timesketch", "l2tcsv", "csv", "sqlite"}, ctx, &result, &error)) << error;
  EXPECT_STREQ(std::getenv("TZ"), "UTC");
  EXPECT_EQ(result.rows_read, 2);
  EXPECT_EQ(result.lines_unreadable, 1);
  ASSERT_EQ(result.outputs.size(), 4u);
  EXPECT_EQ(result.outputs[0].file, "timeline.jsonl");
  EXPECT_EQ(result.outputs[0].rows_written, 1);
  EXPECT_EQ(result.outputs[0].rows_left_out, 1);
  EXPECT_NE(result.outputs[0].left_out_reason.find("no time"), std::string::npos);
  EXPECT_EQ(result.outputs[1].file, "l2t.csv");
  EXPECT_EQ(result.outputs[1].rows_left_out, 1);
  EXPECT_EQ(result.outputs[2].file, "rows.csv");
  EXPECT_EQ(result.outputs[2].rows_written, 2);
  EXPECT_EQ(result.outputs[2].rows_left_out, 0);
  EXPECT_EQ(result.outputs[3].file, "roo.sqlite");
  EXPECT_EQ(result.outputs[3].rows_written, 2);
  const std::string l2t = read_all(dir.path / "l2t.csv");
  EXPECT_EQ(l2t.substr(0, l2t.find('\n') + 1),
            "date,time,timezone,MACB,source,sourcetype,type,user,host,short,desc,version,filename,inode,notes,"
            "format,extra\n");
  EXPECT_NE(l2t.find("\n02/28/2026,21:22:45,EST,"), std::string::npos) << l2t;
  const std::string csv = read_all(dir.path / "rows.csv");
  EXPECT_NE(csv.find(",'=1+1,"), std::string::npos);       // the untimed row is there, neutralised
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 4);  // header, two rows, one newline inside a text
  EXPECT_FALSE(fs::exists(dir.path / "report.html"));
}

// Rows at the edges of JavaScript's Date range as core writes them into rows.jsonl (docs/row-contract.md, "A time
// outside JavaScript's Date range is no time"), through every derived format. ±8.64e15 ms are 275760-09-13 and
// -271821-04-20 (new Date(±8.64e15).toISOString()), Timesketch's microseconds ±8640000000000000000; the other
// numbers are no time: left out of the timelines as untimed rows are, kept as raw_time_ms in the others.
TEST_F(Formats, DeriveAtTheEdgesOfJavaScriptDates) {
  TempDir dir;
  VolumeInfo vol{"demo.E01", {}, 0, "ext4", 0, {}, {}};
  SourceRef src{&vol, {}};
  src.file.path = "/h/ui_messages.json";
  TaskIdentity id{"vscode", "alice", "t1", {}, {}, {}};
  {
    std::ofstream out(dir.path / "rows.jsonl", std::ios::binary);
    int64_t index = 0;
    for (int64_t ms : {int64_t{8640000000000000}, int64_t{8640000000000001}, int64_t{9300000000000000},
                       int64_t{100000000000000000}, int64_t{-8640000000000000}, int64_t{-9300000000000000}}) {
      Row r;
      r.kind = "user_message";
      r.identity = &id;
      r.source = &src;
      r.time_ms = ms;
      r.time_source = "ui.ts";
      r.text = "x";
      r.position.record_index = index++;
      std::string line = row_to_json_line(r);
      patch_sha256(line, std::string(64, '0'));
      out << line;
    }
  }
  FormatContext ctx;
  DeriveResult result;
  std::string error;
  ASSERT_TRUE(derive_outputs(dir.path / "rows.jsonl", dir.path, {"timesketch", "l2tcsv", "csv", "sqlite", "html"},
                             ctx, &result, &error))
      << error;
  EXPECT_EQ(result.rows_read, 6);
  ASSERT_EQ(result.outputs.size(), 5u);
  for (size_t i : {0u, 1u}) {  // timeline.jsonl, l2t.csv
    EXPECT_EQ(result.outputs[i].rows_written, 2) << result.outputs[i].file;
    EXPECT_EQ(result.outputs[i].rows_left_out, 4) << result.outputs[i].file;
    EXPECT_NE(result.outputs[i].left_out_reason.find("time_utc null"), std::string::npos);
  }
  std::istringstream timeline(read_all(dir.path / "timeline.jsonl"));
  std::vector<std::pair<int64_t, std::string>> events;
  for (std::string line; std::getline(timeline, line);) {
    rapidjson::Document e = parse(line);
    events.emplace_back(e["timestamp"].GetInt64(), e["datetime"].GetString());
  }
  EXPECT_EQ(events, (std::vector<std::pair<int64_t, std::string>>{
                        {8640000000000000000, "275760-09-13T00:00:00.000+00:00"},
                        {-8640000000000000000, "-271821-04-20T00:00:00.000+00:00"}}));
  const std::string l2t = read_all(dir.path / "l2t.csv");
  EXPECT_EQ(std::count(l2t.begin(), l2t.end(), '\n'), 3);  // the header and two lines, earliest first
  EXPECT_NE(l2t.find("\n04/20/-271821,00:00:00,UTC,"), std::string::npos) << l2t;
  EXPECT_NE(l2t.find("\n09/13/275760,00:00:00,UTC,"), std::string::npos) << l2t;
  const std::string csv = read_all(dir.path / "rows.csv");
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 7);
  EXPECT_NE(csv.find(",out_of_range,"), std::string::npos);
  EXPECT_NE(csv.find(",9300000000000000,ui.ts,"), std::string::npos) << csv;  // raw_time_ms, raw_time_source
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open_v2((dir.path / "roo.sqlite").c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  EXPECT_EQ(query(db, "SELECT time_utc, time_source, json_extract(row_json, '$.raw_time_ms') FROM rows "
                      "ORDER BY row_number"),
            "275760-09-13T00:00:00.000Z|ui.ts|NULL\n"
            "NULL|out_of_range|8640000000000001\n"
            "NULL|out_of_range|9300000000000000\n"
            "NULL|out_of_range|100000000000000000\n"
            "-271821-04-20T00:00:00.000Z|ui.ts|NULL\n"
            "NULL|out_of_range|-9300000000000000\n");
  sqlite3_close(db);
  // report.html's rows are in its parts: these user messages in their kind's (and their task's).
  EXPECT_NE(read_all(dir.path / "report" / "kind-user_message.js").find(R"("raw_time_ms":-9300000000000000)"),
            std::string::npos);
}

// Numbers come out as rows.jsonl holds them: a cost is not rounded on its way through the parser.
// 0.13387664401253275 is how core writes that double, and RapidJSON's own conversion reads it one place off
// (0.13387664401253278); 9007199254740993 (2^53 + 1) has no double.
TEST_F(Formats, DeriveKeepsNumbersExact) {
  TempDir dir;
  {
    std::ofstream out(dir.path / "rows.jsonl", std::ios::binary);
    out << R"({"kind":"api_request","time_utc":"2026-03-01T02:22:45.639Z","time_source":"ui.ts",)"
        << R"("cost_usd":0.13387664401253275,"tokens_in":9007199254740993,"source":null})" << "\n";
  }
  FormatContext ctx;
  DeriveResult result;
  std::string error;
  ASSERT_TRUE(derive_outputs(dir.path / "rows.jsonl", dir.path, {"timesketch", "csv"}, ctx, &result, &error))
      << error;
  const std::string timeline = read_all(dir.path / "timeline.jsonl");
  EXPECT_NE(timeline.find(R"("cost_usd":0.13387664401253275,"tokens_in":9007199254740993)"), std::string::npos)
      << timeline;
  const std::string csv = read_all(dir.path / "rows.csv");
  EXPECT_NE(csv.find(",0.13387664401253275,"), std::string::npos);
  EXPECT_NE(csv.find(",9007199254740993,"), std::string::npos);
}

// The reader keeps at most kDeriveInFlightBytes of parsed rows ahead of the slowest writer and, once it has had
// to wait, waits for half of it to be free: rows larger than half the budget, and larger than all of it, still go
// through, and every writer gets every row in order.
TEST_F(Formats, DeriveRowsAroundTheInFlightBudget) {
  TempDir dir;
  const size_t big = static_cast<size_t>(kDeriveInFlightBytes / 2);  // with its parsed form, past half and whole
  std::string rows;
  for (int i = 0; i < 300; ++i) {
    const size_t size = i == 5 ? big : i == 150 ? big / 8 : i % 7 == 0 ? 100000 : 10;
    rows += R"({"row_id":"r)" + std::to_string(i) + R"(","kind":"k","time_utc":"2026-03-01T02:22:45.639Z",)"
            R"("time_source":"ui.ts","text":")" + std::string(size, 'x') + "\"}\n";
  }
  std::ofstream(dir.path / "rows.jsonl", std::ios::binary) << rows;
  FormatContext ctx;
  DeriveResult result;
  std::string error;
  ASSERT_TRUE(derive_outputs(dir.path / "rows.jsonl", dir.path, {"timesketch", "csv"}, ctx, &result, &error))
      << error;
  EXPECT_EQ(result.rows_read, 300);
  std::istringstream timeline(read_all(dir.path / "timeline.jsonl"));
  int n = 0;
  for (std::string line; std::getline(timeline, line); ++n)
    ASSERT_NE(line.find(R"("row_id":"r)" + std::to_string(n) + "\""), std::string::npos) << n;
  EXPECT_EQ(n, 300);
  const std::string csv = read_all(dir.path / "rows.csv");
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 301);
  EXPECT_NE(csv.find(",r299,"), std::string::npos);
}

}  // namespace
}  // namespace roo
