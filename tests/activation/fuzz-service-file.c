/* Fuzzes the .service file parser and the Exec= splitter behind it. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "service-file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        ServiceFile *file = NULL;
        ServiceFileError err;
        if (service_file_parse("fuzz.service", (const char *)data, size, &file, &err) == 0) {
                /* A parsed file always has a name and a command. */
                if (!file->name || !file->argv || !file->argv[0])
                        abort();
                service_file_free(file);
        }
        return 0;
}
