/* Protected properties removed from messages, recipient by recipient. */
#pragma once

#include <stdbool.h>

#include "macro.h"

/* By path: the needs record is a plain struct; this header pulls in none of mediation's code. */
#include "../mediation/mediation-needs.h"

typedef struct Message Message;

/*
 * DESIGN.md, mediation point 3: a protected property never reaches a
 * connection without its token, whichever way it travels. The bus calls
 * propfilter_filter() once per recipient of each message that carries
 * property values:
 *
 *   PROPFILTER_GET_ALL              method return of Properties.GetAll, a{sv}
 *   PROPFILTER_GET_MANAGED_OBJECTS  method return of ObjectManager.GetManagedObjects,
 *                                   a{oa{sa{sv}}}
 *   PROPFILTER_PROPERTIES_CHANGED   signal Properties.PropertiesChanged, (sa{sv}as)
 *   PROPFILTER_INTERFACES_ADDED     signal ObjectManager.InterfacesAdded, (oa{sa{sv}})
 *   PROPFILTER_INTERFACES_REMOVED   signal ObjectManager.InterfacesRemoved, (oas): no
 *                                   values, but a protected interface's name
 *
 * A reply does not say what it answers, so the bus keeps a PropfilterCall
 * with each pending reply (propfilter_call_init() when it forwards the
 * call) and hands it back with the reply. Signals need none.
 *
 * Return codes of propfilter_filter(): 0 with *ret the message to deliver
 * (a new reference to m itself when nothing is hidden: no copy, no
 * allocation; else a new message); PROPFILTER_E_DROP: nothing is left for
 * this recipient, deliver nothing; PROPFILTER_E_MALFORMED: the body does
 * not have the member's signature, deliver nothing (fail closed); a
 * negative errno (-ENOMEM, or the callback's error): deliver nothing.
 */
enum {
        PROPFILTER_E_DROP = 1,          /* everything was hidden: nothing to deliver */
        PROPFILTER_E_MALFORMED,         /* the body does not fit the member: drop it */
};

typedef enum PropfilterKind {
        PROPFILTER_NONE = 0,            /* carries no property values: deliver as is */
        PROPFILTER_GET_ALL,
        PROPFILTER_GET_MANAGED_OBJECTS,
        PROPFILTER_PROPERTIES_CHANGED,
        PROPFILTER_INTERFACES_ADDED,
        PROPFILTER_INTERFACES_REMOVED,
} PropfilterKind;

/*
 * What the bus remembers of a forwarded method call until its reply.
 * Embedded in the pending-reply slot; zero-initialised it is "no
 * filtering" (kind NONE) and needs no deinit. needs is what mediation
 * said the call needed of its caller (the bus sets it, propfilter never
 * reads it): observers' copies of the reply are judged by it, and
 * zeroed it is "not known", which gives observers nothing.
 */
typedef struct PropfilterCall {
        PropfilterKind kind;            /* NONE, GET_ALL or GET_MANAGED_OBJECTS */
        bool exact;                     /* the call named the interface (else other shapes pass) */
        char *path;                     /* (owned, nullable) GET_ALL: path, then the interface */
        const char *interface;          /* (nullable) into path's allocation; NULL: every one */
        MediationNeeds needs;           /* the tokens the call needed (mediation-needs.h) */
} PropfilterCall;

/*
 * Fills *call for method call m: kind GET_ALL for
 * org.freedesktop.DBus.Properties.GetAll (path and interface argument
 * copied, one allocation; an argument that is "" or not a valid interface
 * name means every interface: interface NULL), GET_MANAGED_OBJECTS for
 * org.freedesktop.DBus.ObjectManager.GetManagedObjects (no allocation),
 * NONE for anything else. A call without an interface field whose member
 * is GetAll or GetManagedObjects counts too (a service may dispatch it
 * there), with exact false. Returns 0 or -ENOMEM (*call then NONE).
 */
int propfilter_call_init(PropfilterCall *call, Message *m);
void propfilter_call_deinit(PropfilterCall *call);

/*
 * Which kind of property carrier m is: from the header for a signal, from
 * call (nullable) for a method return. Error replies, method calls and
 * everything else are NONE. No allocation; cheap enough to decide once
 * per message whether the per-recipient filtering is needed at all.
 */
PropfilterKind propfilter_classify(Message *m, const PropfilterCall *call);

/*
 * The bus's answer to "may this recipient read property on interface at
 * path": 1 visible, 0 hidden, negative errno when it cannot tell (which
 * fails closed: the message is not delivered). interface is NULL when it
 * is not known (GetAll(""), or the message names something that is not a
 * valid interface name): the answer must then cover every interface, as
 * policy_db_lookup() does with interface NULL. property NULL asks about
 * the interface itself: is it protected (its property-read default, the
 * rule (PROPERTY_READ, path, interface, no member), needs a token the
 * recipient lacks)? It is asked for an interface of GetManagedObjects
 * or InterfacesAdded none of whose properties is visible, and for every
 * interface InterfacesRemoved names; 0 then removes the interface. Within one propfilter_filter() call each question has
 * the same answer; the filter asks each one once (up to
 * PROPFILTER_ANSWERS_MAX questions, then possibly again).
 */
typedef int (*PropfilterVisible)(const char *path, const char *interface, const char *property,
                                 void *userdata);

#define PROPFILTER_ANSWERS_MAX 512

/*
 * Removes from m what visible() hides, for one recipient (see the return
 * codes above). call is the pending reply's PropfilterCall for a method
 * return (nullable otherwise). A rebuilt message keeps every header field
 * (serial, reply serial, flags, path, interface, member, destination,
 * sender) and the body signature; it is little endian whatever m was, and
 * holds duplicates of the descriptors its values still refer to. Removed:
 * each hidden property (from a{sv} dicts and from the invalidated list);
 * in GetManagedObjects and InterfacesAdded each interface with no visible
 * property that is itself protected, and in GetManagedObjects each object
 * left with no interface (an object that had none stays); from
 * InterfacesRemoved each protected interface (it could not have been seen
 * in InterfacesAdded or GetManagedObjects without a visible property; one
 * of its properties may still be visible there when the property's own
 * annotation opens it: the recipient then sees the interface come and not
 * go, which shows nothing protected). PropertiesChanged with no property
 * left either way, and InterfacesAdded or InterfacesRemoved with no
 * interface left, are PROPFILTER_E_DROP; a GetAll or
 * GetManagedObjects reply is always delivered, if need be empty.
 */
int propfilter_filter(Message *m, const PropfilterCall *call, PropfilterVisible visible,
                      void *userdata, Message **ret);
