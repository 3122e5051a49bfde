#include "core/parsers/transcript_text.h"
