/*
 * The single table from the bus's expected outcomes to the D-Bus error
 * names clients see. dbus-daemon's names are the contract: clients and
 * test suites compare them literally, so every code here names the error
 * dbus-daemon sends in the same situation.
 */
#include "bus-error.h"
#include "macro.h"

static const char *const bus_error_names[_BUS_ERROR_MAX] = {
        [BUS_ERROR_FAILED] = "org.freedesktop.DBus.Error.Failed",
        [BUS_ERROR_NO_MEMORY] = "org.freedesktop.DBus.Error.NoMemory",
        [BUS_ERROR_SERVICE_UNKNOWN] = "org.freedesktop.DBus.Error.ServiceUnknown",
        [BUS_ERROR_NAME_HAS_NO_OWNER] = "org.freedesktop.DBus.Error.NameHasNoOwner",
        [BUS_ERROR_NO_REPLY] = "org.freedesktop.DBus.Error.NoReply",
        [BUS_ERROR_LIMITS_EXCEEDED] = "org.freedesktop.DBus.Error.LimitsExceeded",
        [BUS_ERROR_ACCESS_DENIED] = "org.freedesktop.DBus.Error.AccessDenied",
        [BUS_ERROR_INVALID_ARGS] = "org.freedesktop.DBus.Error.InvalidArgs",
        [BUS_ERROR_UNKNOWN_METHOD] = "org.freedesktop.DBus.Error.UnknownMethod",
        [BUS_ERROR_UNKNOWN_INTERFACE] = "org.freedesktop.DBus.Error.UnknownInterface",
        [BUS_ERROR_UNKNOWN_PROPERTY] = "org.freedesktop.DBus.Error.UnknownProperty",
        [BUS_ERROR_PROPERTY_READ_ONLY] = "org.freedesktop.DBus.Error.PropertyReadOnly",
        [BUS_ERROR_MATCH_RULE_INVALID] = "org.freedesktop.DBus.Error.MatchRuleInvalid",
        [BUS_ERROR_MATCH_RULE_NOT_FOUND] = "org.freedesktop.DBus.Error.MatchRuleNotFound",
        [BUS_ERROR_UNIX_PROCESS_ID_UNKNOWN] = "org.freedesktop.DBus.Error.UnixProcessIdUnknown",
        [BUS_ERROR_ADT_AUDIT_DATA_UNKNOWN] = "org.freedesktop.DBus.Error.AdtAuditDataUnknown",
        [BUS_ERROR_SELINUX_CONTEXT_UNKNOWN] = "org.freedesktop.DBus.Error.SELinuxSecurityContextUnknown",
        [BUS_ERROR_NOT_SUPPORTED] = "org.freedesktop.DBus.Error.NotSupported",
        [BUS_ERROR_INCONSISTENT_MESSAGE] = "org.freedesktop.DBus.Error.InconsistentMessage",
        /* No dbus-daemon equivalent: mssf-broker's own interface (driver-mssf.c). */
        [BUS_ERROR_MSSF_SMACK_DISABLED] = "org.mssf.Broker1.Error.SmackDisabled",
        [BUS_ERROR_MSSF_NO_LABEL] = "org.mssf.Broker1.Error.NoLabel",
        [BUS_ERROR_MSSF_POLICY_OUTDATED] = "org.mssf.Broker1.Error.PolicyOutdated",
};

const char *bus_error_name(int code) {
        if (code <= 0 || code >= _BUS_ERROR_MAX || !bus_error_names[code])
                return bus_error_names[BUS_ERROR_FAILED];
        return bus_error_names[code];
}
