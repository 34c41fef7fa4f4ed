/* Includes high.h, whose module includes low.h: a circle of two modules and two rooms. */
#include "high.h"
#include "low.h"

int low_value(void) {
        return 1;
}
