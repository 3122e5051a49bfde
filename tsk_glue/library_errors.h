// libtsk's and libewf's error texts as one line each, for the report and stderr. Shared by the image opener
// (tsk_evidence.cpp) and the verifier (verify.cpp).
#pragma once

#include <libewf.h>

#include <string>

namespace roo::tsk {

// Newlines to spaces, trailing spaces and full stops dropped.
std::string one_line(std::string s);
// The text of a libewf error, which it frees; "libewf error" for none.
std::string ewf_error_text(libewf_error_t* err);

}  // namespace roo::tsk
