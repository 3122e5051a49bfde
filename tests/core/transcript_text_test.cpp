#include <gtest/gtest.h>

#include "core/parsers/transcript_text.h"
