/*
 * propfilter-call: which messages carry property values, and what the bus
 * must remember of a call to filter its reply.
 *
 * Signals say what they are in their header. A method return only names
 * the serial it answers, so the bus records, when it forwards a call, the
 * little this module needs: the kind, and for GetAll the object path and
 * the interface argument (copied: the call itself is not kept alive until
 * the reply, so a large call cannot pin memory). The call comes from an
 * untrusted client and has not been answered yet, so nothing about its
 * body is assumed: an interface argument that is missing, empty or not a
 * valid interface name becomes "every interface" (NULL), the widest
 * question, which can only hide more. No logging; the only allocation is
 * the one copy for a forwarded GetAll.
 */
#include <stdlib.h>
#include <string.h>

#include "message.h"
#include "propfilter.h"
#include "validate.h"

#define INTERFACE_PROPERTIES "org.freedesktop.DBus.Properties"
#define INTERFACE_OBJECT_MANAGER "org.freedesktop.DBus.ObjectManager"

static bool streq(const char *a, const char *b) {
        return a && b && strcmp(a, b) == 0;
}

/* The GetAll argument as the filter's callback wants it: NULL for "every interface". */
static const char *get_all_interface(Message *m) {
        const char *interface = NULL;
        MessageReader reader;

        if (!streq(message_get_signature(m), "s"))
                return NULL;
        message_reader_init(&reader, m);
        if (message_reader_read_basic(&reader, 's', &interface) != 0)
                return NULL;
        if (!validate_interface_name(interface, strlen(interface)))
                return NULL;
        return interface;
}

static int call_init_get_all(PropfilterCall *call, Message *m, bool exact) {
        const char *path = message_get_path(m), *interface = get_all_interface(m);
        size_t path_size, interface_size;
        char *copy;

        if (!path)
                return -EINVAL;         /* a validated method call always has one */
        path_size = strlen(path) + 1;
        interface_size = interface ? strlen(interface) + 1 : 0;
        copy = malloc(path_size + interface_size);
        if (!copy)
                return -ENOMEM;
        memcpy(copy, path, path_size);
        if (interface)
                memcpy(copy + path_size, interface, interface_size);
        *call = (PropfilterCall) {
                .kind = PROPFILTER_GET_ALL,
                .exact = exact,
                .path = copy,
                .interface = interface ? copy + path_size : NULL,
        };
        return 0;
}

int propfilter_call_init(PropfilterCall *call, Message *m) {
        const char *interface = message_get_interface(m), *member = message_get_member(m);
        bool exact;

        *call = (PropfilterCall) { .kind = PROPFILTER_NONE };
        if (message_get_type(m) != MESSAGE_METHOD_CALL)
                return 0;
        if (streq(member, "GetAll")) {
                exact = streq(interface, INTERFACE_PROPERTIES);
                if (exact || !interface)
                        return call_init_get_all(call, m, exact);
        } else if (streq(member, "GetManagedObjects")) {
                exact = streq(interface, INTERFACE_OBJECT_MANAGER);
                if (exact || !interface)
                        *call = (PropfilterCall) {
                                .kind = PROPFILTER_GET_MANAGED_OBJECTS,
                                .exact = exact,
                        };
        }
        return 0;
}

void propfilter_call_deinit(PropfilterCall *call) {
        if (!call)
                return;
        free(call->path);
        *call = (PropfilterCall) { .kind = PROPFILTER_NONE };
}

static PropfilterKind classify_signal(Message *m) {
        const char *interface = message_get_interface(m), *member = message_get_member(m);

        if (streq(interface, INTERFACE_PROPERTIES) && streq(member, "PropertiesChanged"))
                return PROPFILTER_PROPERTIES_CHANGED;
        if (streq(interface, INTERFACE_OBJECT_MANAGER) && streq(member, "InterfacesAdded"))
                return PROPFILTER_INTERFACES_ADDED;
        if (streq(interface, INTERFACE_OBJECT_MANAGER) && streq(member, "InterfacesRemoved"))
                return PROPFILTER_INTERFACES_REMOVED;
        return PROPFILTER_NONE;
}

PropfilterKind propfilter_classify(Message *m, const PropfilterCall *call) {
        switch (message_get_type(m)) {
        case MESSAGE_SIGNAL:
                return classify_signal(m);
        case MESSAGE_METHOD_RETURN:
                if (!call || (call->kind != PROPFILTER_GET_ALL &&
                              call->kind != PROPFILTER_GET_MANAGED_OBJECTS))
                        return PROPFILTER_NONE;
                return call->kind;
        default:
                return PROPFILTER_NONE;
        }
}
