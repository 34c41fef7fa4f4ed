/* Uses low: the direction the circle's other half goes against. */
#include "high.h"

int high_value(void) {
        return low_value() + 1;
}
