/* low: a module that includes a module above it, for tests/layout. */
#pragma once

int low_value(void);
