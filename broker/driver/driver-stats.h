/* The bus driver's org.freedesktop.DBus.Debug.Stats interface (dbus-daemon's statistics). */
#pragma once

typedef struct Bus Bus;
typedef struct MatchRule MatchRule;

#define DRIVER_STATS_RULE_MAX 4096

/* The methods are driver_stats_methods (driver-internal.h). */
/* Records the peaks of match rules and bus names; call after anything may have raised them. */
void driver_stats_update_peaks(Bus *bus);

/* A rule as dbus-daemon writes it in GetAllMatchRules (truncated to the buffer). */
void driver_stats_format_rule(const MatchRule *rule, char buf[DRIVER_STATS_RULE_MAX]);
