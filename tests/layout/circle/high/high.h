/* high: a module that uses low, for tests/layout. */
#pragma once

#include "low.h"

int high_value(void);
