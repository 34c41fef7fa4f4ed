/*
 * message-new: the messages the bus itself composes (replies, errors,
 * signals) and builders seeded with the header of a received message
 * (for rebuilding its body, e.g. when mediation filters properties).
 * Everything but a reply's destination goes through the public builder
 * API, so the builder's checks apply; these functions only fill in the
 * header fields the specification ties together (reply serial,
 * destination: the call's sender, a valid name already).
 */
#include "message-private.h"

int message_builder_new_from_header(Message *m, MessageBuilder **ret) {
        _cleanup_(message_builder_freep) MessageBuilder *b = NULL;
        int r;

        r = message_builder_new(message_get_type(m), &b);
        if (r)
                return r;
        if ((r = message_builder_set_flags(b, message_get_flags(m))) ||
            (r = message_builder_set_serial(b, message_get_serial(m))) ||
            (r = message_builder_set_reply_serial(b, message_get_reply_serial(m))) ||
            (r = message_builder_set_path(b, message_get_path(m))) ||
            (r = message_builder_set_interface(b, message_get_interface(m))) ||
            (r = message_builder_set_member(b, message_get_member(m))) ||
            (r = message_builder_set_error_name(b, message_get_error_name(m))) ||
            (r = message_builder_set_destination(b, message_get_destination(m))) ||
            (r = message_builder_set_sender(b, message_get_sender(m))))
                return r;
        *ret = TAKE_PTR(b);
        return 0;
}

static int new_reply(Message *call, uint8_t type, const char *sender, MessageBuilder **ret) {
        _cleanup_(message_builder_freep) MessageBuilder *b = NULL;
        int r;

        r = message_builder_new(type, &b);
        if (r)
                return r;
        message_builder_set_reply_to(b, call);
        r = message_builder_set_sender(b, sender);
        if (r)
                return r;
        *ret = TAKE_PTR(b);
        return 0;
}

int message_new_method_return(Message *call, const char *sender, MessageBuilder **ret) {
        return new_reply(call, MESSAGE_METHOD_RETURN, sender, ret);
}

int message_new_error(Message *call, const char *sender, const char *error_name,
                      const char *text, Message **ret) {
        _cleanup_(message_builder_freep) MessageBuilder *b = NULL;
        int r;

        if (!error_name)
                return -EINVAL;
        r = new_reply(call, MESSAGE_ERROR, sender, &b);
        if (r)
                return r;
        r = message_builder_set_error_name(b, error_name);
        if (r)
                return r;
        if (text) {
                r = message_builder_append_basic(b, 's', text);
                if (r)
                        return r;
        }
        return message_builder_finish(b, ret);
}

int message_new_signal(const char *sender, const char *path, const char *interface,
                       const char *member, MessageBuilder **ret) {
        _cleanup_(message_builder_freep) MessageBuilder *b = NULL;
        int r;

        if (!path || !interface || !member)
                return -EINVAL;
        r = message_builder_new(MESSAGE_SIGNAL, &b);
        if (r)
                return r;
        if ((r = message_builder_set_sender(b, sender)) ||
            (r = message_builder_set_path(b, path)) ||
            (r = message_builder_set_interface(b, interface)) ||
            (r = message_builder_set_member(b, member)))
                return r;
        *ret = TAKE_PTR(b);
        return 0;
}
