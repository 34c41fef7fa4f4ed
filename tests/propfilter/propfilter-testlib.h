/* Helpers for the propfilter tests, fuzzer and benchmark: build carriers, judge, census. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "message.h"
#include "propfilter.h"

/*
 * Specs. Properties: "A,B,C" ("" for none); the value of each comes from
 * the first letter of its name: N an a{sv} in the variant (with a variant
 * inside), S an array of structs a(si), B 70,000 bytes (ay), F a unix fd
 * (h), V a variant inside the variant, D an a{sas}, anything else the
 * name as a string. Interfaces: "org.ex.A=P,Q;org.ex.B=" (";" between
 * them). Objects: "/a:org.ex.A=P,Q;org.ex.B=|/b:" ("|" between them).
 */
int testlib_append_properties(MessageBuilder *b, const char *spec);
int testlib_append_interfaces(MessageBuilder *b, const char *spec);
int testlib_append_objects(MessageBuilder *b, const char *spec);

/* Method returns with a fixed header (serial 7, reply serial 3, sender, destination, flags). */
int testlib_get_all_reply(const char *properties, Message **ret);
int testlib_managed_objects_reply(const char *objects, Message **ret);
/* Signals from :1.7 at path. */
int testlib_properties_changed(const char *path, const char *interface, const char *changed,
                               const char *invalidated, Message **ret);
int testlib_interfaces_added(const char *path, const char *interfaces, Message **ret);
/* InterfacesRemoved of path; interfaces "org.ex.A,org.ex.B" ("" for none). */
int testlib_interfaces_removed(const char *path, const char *interfaces, Message **ret);

/*
 * A big-endian GetAll reply (serial 7, reply serial 3, NO_AUTO_START, :1.7
 * to :1.9), made by hand: "A" u 7, "Secret" s "hidden", "Nested" a{sv}
 * {"inner" i -1}. Returns its size (below 512).
 */
size_t testlib_big_endian_get_all(uint8_t buf[static 512]);

/*
 * A PropfilterVisible. hidden: NULL-terminated patterns "path|interface|property",
 * each field "*" (anything, NULL too), "-" (NULL) or an fnmatch() pattern; a question
 * matching one is hidden. fail_at: the n-th call (1-based) fails with
 * -EIO (0: never).
 */
typedef struct TestRules {
        const char *const *hidden;
        unsigned n_calls;
        unsigned fail_at;
} TestRules;

int testlib_visible(const char *path, const char *interface, const char *property,
                    void *userdata);

/*
 * A census of a carrier as visible() sees it, walked independently of the
 * filter: property entries (a{sv} keys and invalidated names) visible and
 * hidden (InterfacesRemoved: its interface names, asked with property NULL), interface entries, those of them with no property whose interface
 * is protected, objects. Returns 0, PROPFILTER_E_MALFORMED (not the kind's
 * signature) or a negative errno.
 */
typedef struct TestCensus {
        unsigned visible;
        unsigned hidden;
        unsigned interfaces;
        unsigned empty_protected;
        unsigned objects;
} TestCensus;

int testlib_census(Message *m, PropfilterKind kind, const PropfilterCall *call,
                   PropfilterVisible visible, void *userdata, TestCensus *ret);
