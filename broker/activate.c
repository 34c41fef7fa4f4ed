/*
 * activate: what the bus does with a message for a name that has no owner.
 * Without an activatable service for it, dbus-daemon's answers:
 * ServiceUnknown when the sender allowed auto-start, NameHasNoOwner when
 * it set NO_AUTO_START.
 */
#include "bus-error.h"
#include "bus.h"
#include "message.h"

int bus_activate(Bus *bus, Peer *sender, Message *m, const char *destination) {
        if (!(message_get_flags(m) & MESSAGE_FLAG_NO_AUTO_START))
                return bus_reply_error(bus, sender, m, BUS_ERROR_SERVICE_UNKNOWN,
                                       "The name %s was not provided by any .service files",
                                       destination);
        return bus_reply_error(bus, sender, m, BUS_ERROR_NAME_HAS_NO_OWNER,
                               "Name \"%s\" does not exist", destination);
}
