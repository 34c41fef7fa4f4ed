/* libFuzzer harness: any bytes as a device policy file, then queried. */
#include <stddef.h>
#include <stdint.h>

#include "device-policy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        Diagnostics *diag = NULL;
        DevicePolicy *policy = NULL;
        if (diagnostics_new(&diag) < 0)
                return 0;
        if (device_policy_parse_buffer((const char *) data, size, "fuzz.conf", diag, &policy) == 0) {
                (void) device_policy_allows(policy, "thirdparty", "Cellular", false);
                (void) device_policy_allows(policy, NULL, "pkg::Token", true);
                (void) device_policy_is_monitor(policy, "System");
        }
        device_policy_free(policy);
        diagnostics_free(diag);
        return 0;
}
