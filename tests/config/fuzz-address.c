/*
 * fuzz-address: the address parser over arbitrary strings; whatever parses
 * must survive escaping and formatting.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "address.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        static const char guid[] = "0123456789abcdef0123456789abcdef";
        char *text = strndup((const char *)data, size);
        BusAddressList *list = NULL;
        AddressError err = {};

        if (!text)
                return 0;
        if (bus_address_parse(text, &list, &err) == 0) {
                for (size_t i = 0; i < list->n_entries; i++) {
                        const BusAddress *a = &list->entries[i];
                        char *formatted = NULL;
                        BusAddressList *again = NULL;

                        if (a->kind != BUS_ADDRESS_UNIX_PATH && a->kind != BUS_ADDRESS_UNIX_ABSTRACT)
                                continue;
                        /* format(parse(x)) parses back to the same path */
                        if (bus_address_format_unix(a->path, a->kind == BUS_ADDRESS_UNIX_ABSTRACT, guid,
                                                    &formatted) < 0)
                                abort();
                        if (bus_address_parse(formatted, &again, NULL) != 0 ||
                            strcmp(again->entries[0].path, a->path) != 0)
                                abort();
                        bus_address_list_free(again);
                        free(formatted);
                }
        } else if (err.message[0] == '\0')
                abort();
        bus_address_list_free(list);
        free(text);
        return 0;
}
