// core/record_carver: the fuzzer's bytes as one carved run, fed in two reads cut where its first byte says, every value
// found turned into rows (each row's fields read: fuzz_harness.h) against a known record set, as --deep does; and as a
// known file whose values are given their record places.
#include <memory>

#include "core/record_carver.h"
#include "core/json_records.h"
#include "fuzz_harness.h"

namespace {

using namespace roo;

// What every input is carved against, made once (tests/fuzz/README.md): one known record to fold into, one region.
struct Fixed {
  Fixed() {
    known.add_file(R"([{"ts":1,"type":"say","say":"text","text":"prompt"}])", &task);  // seals it
    regions[0].volume = VolumeInfo{"fuzz.img", {}, 0, "ext4", 0};
    regions[0].file.path = "$Unallocated";
    regions[0].file.recovery = Recovery::carved;
    regions[0].fs_offset = 0;
    regions[0].block_size = 1024;
  }
  TaskIdentity task{"vscode", "u", "t", {}, {}, {}};
  KnownRecords known;
  std::vector<CarveRegion> regions = std::vector<CarveRegion>(1);
  fuzz::TouchingSink sink;
  // Where the JSON check's document is built, emptied per input: a Document of its own takes a 64 KiB first chunk
  // from the heap per input, most of the bytes an execution allocated (tests/fuzz/README.md).
  std::unique_ptr<char[]> pool_buffer{new char[kPoolBytes]};
  rapidjson::MemoryPoolAllocator<> pool{pool_buffer.get(), kPoolBytes};
  static constexpr size_t kPoolBytes = 64u << 10;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static Fixed fixed;
  CarveStats stats;
  CarvedRecordEmitter emitter(fixed.known, fixed.regions, fixed.sink, stats, true);
  Carver carver([&](CarvedValue&& v) { emitter.add(std::move(v)); }, false, 1 << 16);
  carver.begin_run(512);
  const size_t cut = size ? data[0] % (size + 1) : 0;
  carver.feed(reinterpret_cast<const char*>(data), cut);
  carver.feed(reinterpret_cast<const char*>(data) + cut, size - cut);
  carver.end_run();
  emitter.finish();
  // The fuzzer's bytes as a known file: every value's record place (carved folds name its rows in also_in).
  RecordPlaces places;
  Carver known_file([&](CarvedValue&& v) {
    const int64_t at = places.next(v);
    if (at < KnownRecords::kNoPlace) __builtin_trap();
  }, true);
  known_file.begin_run(0);
  known_file.feed(reinterpret_cast<const char*>(data), size);
  known_file.end_run();
  // The carver's own JSON check must agree with the parser every row comes from, on what it is given: framed values
  // hold no NUL byte (parse_json, on RapidJSON's NUL-terminated reading, takes a NUL for the end of the text). The
  // check is seen through classify_carved: a UI message record holding the bytes as a member's value is one only
  // when they are JSON text.
  fixed.pool.Clear();
  rapidjson::Document doc(&fixed.pool);
  std::string why;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  if (text.find('\0') == std::string_view::npos) {
    const std::string record = R"({"ts":1,"type":"say","v":)" + std::string(text) + "}";
    if ((classify_carved(record) == CarvedKind::ui_message) != parse_json(record.data(), record.size(), doc, &why))
      __builtin_trap();
  }
  return 0;
}
