/* The bus's per-label quotas: which peers are accounted, what a refusal says and logs (quota.h). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "quota.h"

typedef struct Bus Bus;
typedef struct Message Message;
typedef struct Peer Peer;

/* Whether the bus accounts peers by label: with Smack only (without it, as dbus-daemon). */
bool bus_quota_by_label(const Bus *bus);


/*
 * Hello: with Smack, counts the peer's connection in its label's account
 * and has its names, match rules, replies and queue counted there from
 * now on. 0; BUS_ERROR_LIMITS_EXCEEDED with the refusal's text (label and
 * limit named; logged once per label and limit, rate-limited); -errno.
 */
int peer_quota_admit(Peer *peer, char *text, size_t size);
/* The peer disconnected: one connection fewer for its label. */
void peer_quota_leave(Peer *peer);
/* peer_free(), last: the peer's reference to its account. */
void peer_quota_release(Peer *peer);

/*
 * Whether one more of resource (names, match rules, replies) fits the
 * peer's label: 0, or BUS_ERROR_LIMITS_EXCEEDED with the refusal's text
 * for the peer (counted and logged as above). Peers that are not
 * accounted always fit.
 */
int peer_quota_check(Peer *peer, QuotaResource resource, char *text, size_t size);

/*
 * recipient's queue refused m (CONNECTION_E_QUOTA). If its label's share
 * was what refused it, the refusal is counted and logged for the label,
 * text (nullable) says so for m's sender, and true is returned; false:
 * the connection's own queue is full.
 */
bool peer_quota_queue_refused(Peer *recipient, Message *m, char *text, size_t size);
