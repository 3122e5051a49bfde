// The derived formats' one byte scanner: where the next byte that a writer must treat specially is (a CSV quote or
// separator, a JSON escape, a byte of white space). Formats copy the runs between such bytes whole, 16 bytes a step
// (SSE2), instead of looking every byte up: strings are most of rows.jsonl's 270 MB on the benchmark image.
#pragma once

#include <cstddef>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace roo {

// The first byte in [p, end) that is below Below (unsigned; 0: no such range) or is one of Bytes, or end.
template <unsigned char Below, char... Bytes>
const char* find_special_byte(const char* p, const char* end) {
#if defined(__SSE2__)
  for (; end - p >= 16; p += 16) {
    const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    __m128i hit = _mm_setzero_si128();
    if constexpr (Below > 0) {
      const __m128i top = _mm_set1_epi8(static_cast<char>(Below - 1));
      hit = _mm_cmpeq_epi8(_mm_min_epu8(b, top), b);  // b <= Below - 1, unsigned
    }
    ((hit = _mm_or_si128(hit, _mm_cmpeq_epi8(b, _mm_set1_epi8(Bytes)))), ...);
    if (const int mask = _mm_movemask_epi8(hit)) return p + __builtin_ctz(static_cast<unsigned>(mask));
  }
#endif
  for (; p < end; ++p) {
    const auto c = static_cast<unsigned char>(*p);
    if (c < Below || ((*p == Bytes) || ...)) return p;
  }
  return end;
}

}  // namespace roo
