#include "core/parsers/tool_semantics.h"
