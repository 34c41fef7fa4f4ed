/* libFuzzer harness: any bytes as a manifest, then into a policy set and resolved. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "device-policy.h"
#include "manifest.h"
#include "policyset.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        Diagnostics *diag = NULL;
        DevicePolicy *device = NULL;
        PolicySet *set = NULL;
        Package *package = NULL;
        if (diagnostics_new(&diag) < 0 || device_policy_new_default(&device) < 0 ||
            policy_set_new(device, &set) < 0)
                goto out;
        device = NULL;
        if (manifest_parse_buffer((const char *) data, size, "fuzz.xml", "fuzz", "thirdparty",
                                  diag, &package) != 0)
                goto out;
        if (policy_set_add(set, package, diag) != 0)
                goto out;
        package = NULL;
        (void) policy_set_resolve(set, diag);
        for (size_t i = 0; i < diag->n_items; i++) {
                char *s = NULL;
                if (diagnostic_format(diag->items[i], &s) == 0)
                        free(s);
        }
out:
        package_free(package);
        policy_set_free(set);
        device_policy_free(device);
        diagnostics_free(diag);
        return 0;
}
