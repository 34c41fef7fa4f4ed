/* The bus's expected outcomes that become D-Bus error replies. */
#pragma once

/*
 * Positive codes; bus_error_name() is the one place that turns them into
 * D-Bus error names. Modules return these (or their own positive codes
 * that their caller translates into one of these).
 */
typedef enum BusError {
        BUS_ERROR_FAILED = 1,
        BUS_ERROR_NO_MEMORY,
        BUS_ERROR_SERVICE_UNKNOWN,
        BUS_ERROR_NAME_HAS_NO_OWNER,
        BUS_ERROR_NO_REPLY,
        BUS_ERROR_LIMITS_EXCEEDED,
        BUS_ERROR_ACCESS_DENIED,
        BUS_ERROR_INVALID_ARGS,
        BUS_ERROR_UNKNOWN_METHOD,
        BUS_ERROR_UNKNOWN_INTERFACE,
        BUS_ERROR_UNKNOWN_PROPERTY,
        BUS_ERROR_PROPERTY_READ_ONLY,
        BUS_ERROR_MATCH_RULE_INVALID,
        BUS_ERROR_MATCH_RULE_NOT_FOUND,
        BUS_ERROR_UNIX_PROCESS_ID_UNKNOWN,
        BUS_ERROR_ADT_AUDIT_DATA_UNKNOWN,
        BUS_ERROR_SELINUX_CONTEXT_UNKNOWN,
        BUS_ERROR_NOT_SUPPORTED,
        BUS_ERROR_INCONSISTENT_MESSAGE,
        /* Ours (org.mssf.Broker1.CheckToken), where dbus-daemon has no equivalent. */
        BUS_ERROR_MSSF_SMACK_DISABLED,
        BUS_ERROR_MSSF_NO_LABEL,
        BUS_ERROR_MSSF_POLICY_OUTDATED,
        _BUS_ERROR_MAX,
} BusError;

/* The D-Bus error name of code, "org.freedesktop.DBus.Error.Failed" for unknown codes. */
const char *bus_error_name(int code);
