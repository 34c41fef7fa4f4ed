/*
 * libmssf-probe's sd-bus service: the same org.mssf.Probe as probe-gio.c,
 * with libmssf's sd-bus calls, on sd-event:
 *   Check(s token)              mssf_sd_bus_message_check_token_async()
 *   CheckSync(s token)          mssf_sd_bus_message_check_token()
 *   CheckName(s name, s token)  mssf_sd_bus_check_token_async()
 *   CheckNameSync(s name, s token) mssf_sd_bus_check_token()
 * error is "" or "NAME: text" from the sd_bus_error, plus " [errno N]"
 * so that a test can check the errno libmssf returned.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-event.h>

#include "mssf/mssf-sd-bus.h"
#include "probe.h"

/* The (b, s) answer to call. */
static int reply(sd_bus_message *call, int held, const sd_bus_error *error) {
        char text[1024] = "";

        if (held < 0)
                snprintf(text, sizeof(text), "%s: %s [errno %d]", error && error->name ? error->name : "(unset)",
                         error && error->message ? error->message : "", -held);
        return sd_bus_reply_method_return(call, "bs", held > 0, text);
}

static int answered(int held, const sd_bus_error *error, void *userdata) {
        sd_bus_message *call = userdata;
        int r;

        if (held >= 0 && error) {
                fprintf(stderr, "libmssf-probe: an answer with an error\n");
                abort();
        }
        r = reply(call, held, error);
        sd_bus_message_unref(call);
        return r;
}

static int method_check(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        const char *token;
        int r = sd_bus_message_read(m, "s", &token);

        if (r < 0)
                return r;
        /* The call is kept until the answer comes. */
        sd_bus_message_ref(m);
        r = mssf_sd_bus_message_check_token_async(m, NULL, token, answered, m);
        if (r < 0) {
                const sd_bus_error not_sent = SD_BUS_ERROR_MAKE_CONST("org.mssf.Probe.NotSent", "not sent");

                r = reply(m, r, &not_sent);
                sd_bus_message_unref(m);
                return r;
        }
        return 1;
}

static int method_check_sync(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        sd_bus_error error = SD_BUS_ERROR_NULL;
        const char *token;
        int r = sd_bus_message_read(m, "s", &token);

        if (r < 0)
                return r;
        r = mssf_sd_bus_message_check_token(m, token, &error);
        r = reply(m, r, &error);
        sd_bus_error_free(&error);
        return r;
}

static int method_check_name(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        const char *name, *token;
        int r = sd_bus_message_read(m, "ss", &name, &token);

        if (r < 0)
                return r;
        sd_bus_message_ref(m);
        r = mssf_sd_bus_check_token_async(sd_bus_message_get_bus(m), NULL, name, token, answered, m);
        if (r < 0) {
                const sd_bus_error not_sent = SD_BUS_ERROR_MAKE_CONST("org.mssf.Probe.NotSent", "not sent");

                r = reply(m, r, &not_sent);
                sd_bus_message_unref(m);
                return r;
        }
        return 1;
}

static int method_check_name_sync(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        sd_bus_error error = SD_BUS_ERROR_NULL;
        const char *name, *token;
        int r = sd_bus_message_read(m, "ss", &name, &token);

        if (r < 0)
                return r;
        r = mssf_sd_bus_check_token(sd_bus_message_get_bus(m), name, token, &error);
        r = reply(m, r, &error);
        sd_bus_error_free(&error);
        return r;
}

static const sd_bus_vtable probe_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_METHOD("Check", "s", "bs", method_check, 0),
        SD_BUS_METHOD("CheckSync", "s", "bs", method_check_sync, 0),
        SD_BUS_METHOD("CheckName", "ss", "bs", method_check_name, 0),
        SD_BUS_METHOD("CheckNameSync", "ss", "bs", method_check_name_sync, 0),
        SD_BUS_VTABLE_END
};

static int open_bus(const char *address, sd_bus **ret) {
        sd_bus *bus = NULL;
        int r;

        if (!address)
                return sd_bus_open_system(ret);
        r = sd_bus_new(&bus);
        if (r >= 0)
                r = sd_bus_set_address(bus, address);
        if (r >= 0)
                r = sd_bus_set_bus_client(bus, 1);
        if (r >= 0)
                r = sd_bus_start(bus);
        if (r < 0) {
                sd_bus_unref(bus);
                return r;
        }
        *ret = bus;
        return 0;
}

int probe_serve_sd_bus(const char *address, const char *name) {
        sd_event *event = NULL;
        sd_bus *bus = NULL;
        const char *unique = NULL;
        int r;

        r = open_bus(address, &bus);
        if (r >= 0)
                r = sd_event_default(&event);
        if (r >= 0)
                r = sd_bus_attach_event(bus, event, 0);
        if (r >= 0)
                r = sd_bus_add_object_vtable(bus, NULL, PROBE_PATH, PROBE_INTERFACE, probe_vtable, NULL);
        if (r >= 0)
                r = sd_bus_request_name(bus, name, 0);
        if (r >= 0)
                r = sd_bus_get_unique_name(bus, &unique);
        if (r < 0) {
                fprintf(stderr, "libmssf-probe: %s\n", strerror(-r));
                return 1;
        }
        printf("ready %s %s\n", name, unique);
        fflush(stdout);
        r = sd_event_loop(event);
        fprintf(stderr, "libmssf-probe: the event loop ended: %s\n", strerror(r < 0 ? -r : 0));
        sd_bus_flush_close_unref(bus);
        sd_event_unref(event);
        return 1;
}
