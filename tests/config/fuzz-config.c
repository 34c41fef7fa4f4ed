/*
 * fuzz-config: the busconfig parser over arbitrary bytes, as if they were a
 * file named /fuzz/fuzz.conf. Includes are parsed but not followed, so the
 * fuzzer never reads the file system. Every outcome must be 0 or
 * CONFIG_E_INVALID with a "file:line: message" text.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "address.h"
#include "config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_address(const BusConfig *config) {
        for (size_t i = 0; i < config->n_listen; i++) {
                BusAddressList *list = NULL;

                /* What the parser accepted, the address parser accepts again. */
                if (bus_address_parse(config->listen[i], &list, NULL) != 0)
                        abort();
                bus_address_list_free(list);
        }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        BusConfig *config = NULL;
        ConfigError err = {};
        int r;

        r = bus_config_load_string("/fuzz/fuzz.conf", (const char *)data, size, BUS_CONFIG_NO_INCLUDES,
                                   &config, &err);
        if (r == 0) {
                if (!config || err.message[0] != '\0')
                        abort();
                check_address(config);
        } else if (r == CONFIG_E_INVALID) {
                if (config || strncmp(err.message, "/fuzz/fuzz.conf:", 16) != 0)
                        abort();
        } else if (r != -ENOMEM)
                abort();
        bus_config_free(config);
        return 0;
}
