#include <gtest/gtest.h>

#include "core/parsers/tool_semantics.h"
