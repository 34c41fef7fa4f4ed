/* driver-internal: the method table and the answer helpers that the driver's files share. */
#pragma once

#include <stdbool.h>

typedef struct Bus Bus;
typedef struct Message Message;
typedef struct MessageBuilder MessageBuilder;
typedef struct Peer Peer;

/* The driver's own interface (its name is BUS_DRIVER_NAME, bus.h). */
#define DRIVER_INTERFACE "org.freedesktop.DBus"

typedef struct DriverError {
        char text[512];
} DriverError;

typedef int (*DriverHandler)(Bus *bus, Peer *peer, Message *m, DriverError *error);

typedef struct DriverMethod {
        const char *interface;
        const char *member;
        const char *signature;          /* the arguments it takes */
        DriverHandler handler;
        bool canonical_path_only;       /* only at /org/freedesktop/DBus */
} DriverMethod;

/* A positive BusError with a formatted text, for handlers to return. */
int driver_fail(DriverError *error, int code, const char *format, ...)
        __attribute__((format(printf, 3, 4)));
/* A method return for call with no body, or the builder to fill (then driver_send). */
int driver_return_new(Message *call, MessageBuilder **ret);
int driver_send(Bus *bus, Peer *peer, Message *call, MessageBuilder *b);
int driver_return_empty(Bus *bus, Peer *peer, Message *call);
/* The same, unless the call has NO_REPLY_EXPECTED (dbus-daemon's "ack" replies). */
int driver_return_ack(Bus *bus, Peer *peer, Message *call);
/* A method return whose body is one value of a basic type. */
int driver_return_basic(Bus *bus, Peer *peer, Message *call, char type, const void *value);
/* One "{sv}" dict entry (key, a basic value in a variant) of an a{sv} being built. */
int driver_append_entry(MessageBuilder *b, const char *key, char type, const void *value);

/* A name argument to its owner (*ret NULL: the driver); BUS_ERROR_* when none. */
int driver_resolve(Bus *bus, const char *name, Peer **ret);

/* driver-names.c: RequestName, ReleaseName, GetNameOwner and the name lists. */
extern const DriverMethod driver_names_methods[];
extern const unsigned driver_n_names_methods;
/* driver-match.c: AddMatch and RemoveMatch. */
extern const DriverMethod driver_match_methods[];
extern const unsigned driver_n_match_methods;
/* driver-info.c: credentials, properties, introspection, monitoring. */
extern const DriverMethod driver_info_methods[];
extern const unsigned driver_n_info_methods;
/* driver-mssf.c: org.mssf.Broker1.CheckToken, and its introspection XML. */
extern const DriverMethod driver_mssf_methods[];
extern const unsigned driver_n_mssf_methods;
extern const char driver_mssf_xml_check_token[];
/* driver-quota.c: the per-label entries of org.mssf.Broker1.GetStats, appended to its a{sv}. */
int driver_stats_label_quotas(MessageBuilder *b, Bus *bus);
/* driver-stats.c: org.freedesktop.DBus.Debug.Stats. */
extern const DriverMethod driver_stats_methods[];
extern const unsigned driver_n_stats_methods;
