// The APFS keybag's byte structures (tsk_glue/apfs_keybag.h): a decrypted keybag block's object check and entry list,
// and each entry's data (and the whole input) as a wrapped key's packed object. Asserts the parser's promises: every
// entry and every packed value is a view inside the bytes it was read from, no more entries than kl_nkeys, entries in
// order and 16-byte aligned, and an entry list cut short says why.
#include <cstdint>
#include <cstdlib>

#include "tsk_glue/apfs_keybag.h"

namespace {

using roo::tsk::ByteSpan;

bool inside(ByteSpan part, ByteSpan whole) {
  return part.data() >= whole.data() && part.data() + part.size() <= whole.data() + whole.size();
}

void check(bool ok) {
  if (!ok) std::abort();
}

void check_wrapped_key(ByteSpan blob) {
  const roo::tsk::WrappedKeyBlob key = roo::tsk::wrapped_key_blob(blob);
  for (const auto& value : {key.uuid, key.flags, key.wrapped, key.iterations, key.salt})
    if (value) {
      check(inside(*value, blob));
      (void)roo::tsk::be_number(*value);
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const ByteSpan block(data, size);
  (void)roo::tsk::keybag_object_ok(block, roo::tsk::kContainerKeybag);
  const roo::tsk::KeybagEntries bag = roo::tsk::keybag_entries(block);
  check(size >= 48 || (bag.entries.empty() && !bag.error.empty()));
  if (size >= 48) {
    const size_t count = roo::tsk::le16(data + 34);  // kl_nkeys
    check(bag.entries.size() <= count && bag.error.empty() == (bag.entries.size() == count));
  }
  const unsigned char* last_end = data + 48;
  for (const roo::tsk::KeybagEntry& e : bag.entries) {
    check(e.uuid.size() == 16 && inside(e.uuid, block) && inside(e.data, block));
    check(e.uuid.data() >= last_end && (e.uuid.data() - data) % 16 == 0);
    check(e.data.data() == e.uuid.data() + 24);
    last_end = e.data.data() + e.data.size();
    check_wrapped_key(e.data);
  }
  check_wrapped_key(block);
  return 0;
}
