/* The manifest parser's state and element handlers, shared by its files (manifest*.c) and no one else. */
#pragma once

#include <expat.h>
#include <stdbool.h>

#include "diagnostic.h"
#include "manifest.h"
#include "model.h"

typedef enum ElementKind {
        ELEMENT_AEGIS,
        ELEMENT_REQUEST,
        ELEMENT_REQUEST_CREDENTIAL,
        ELEMENT_FOR,
        ELEMENT_PROVIDE,
        ELEMENT_PROVIDE_CREDENTIAL,
        ELEMENT_DBUS,
        ELEMENT_OWNER,
        ELEMENT_NODE,
        ELEMENT_INTERFACE,
        ELEMENT_METHOD,
        ELEMENT_SIGNAL,
        ELEMENT_PROPERTY,
        ELEMENT_ARG,
        ELEMENT_ANNOTATION,
        ELEMENT_ACCOUNT,
        ELEMENT_USER,
        ELEMENT_DOCSTRING,              /* subtree skipped, text allowed */
        ELEMENT_SKIPPED,                /* ignored after a warning or an error */
        _ELEMENT_MAX,
} ElementKind;

typedef struct Frame {
        ElementKind kind;
        void *object;                   /* (not owned) the model object it fills */
        void *parent_object;            /* (not owned) e.g. the Interface of a method */
        SourceLoc loc;
} Frame;

typedef struct Parser {
        XML_Parser xml;
        /* The bytes being parsed and how far parser_here() has counted lines. */
        const char *buf;
        size_t buf_size;
        size_t pos;
        size_t line_start;
        unsigned line;
        Package *package;               /* (not owned) what is being filled */
        Diagnostics *diag;              /* (nullable) */
        Frame stack[MANIFEST_MAX_DEPTH + 1];
        unsigned depth;
        unsigned skip_depth;            /* > 0 inside a skipped subtree */
        size_t n_elements;
        int oom;                        /* a negative errno stops everything */
        size_t n_errors;
        /*
         * (owned) Token names the package provides (without "pkg::"), when
         * known before the pass (provided_known); otherwise the tokens
         * declared so far decide, and every bare name resolved as a global
         * token is remembered in globals: if the file later provides one
         * of them, the pass is repeated with the names known (rerun).
         */
        char **provided;
        size_t n_provided;
        bool provided_known;
        char **globals;                 /* (owned) */
        size_t n_globals;
        bool rerun;
        bool saw_root;
        bool text_warned;
} Parser;

/* Report at loc (or at the current position when loc is NULL). */
void parser_error(Parser *p, const SourceLoc *loc, const char *format, ...) _printf_(3, 4);
void parser_warning(Parser *p, const SourceLoc *loc, const char *format, ...) _printf_(3, 4);
/* Record a negative errno; returns it. */
int parser_fail(Parser *p, int r);

/*
 * Handle one start tag: decide its kind from the parent, check its
 * attributes, build or merge its model object. Sets *frame.
 */
void parser_start_element(Parser *p, const Frame *parent, const char *name,
                          const char **attrs, SourceLoc loc, Frame *frame);

/* The element name of a kind ("request"). */
const char *parser_element_name(ElementKind kind);

/*
 * Resolve a token name as written in this manifest into its full label:
 * a bare name is "pkg::name" if the package provides it, else global;
 * "pkg::name" stays. Sets *ret_label and *ret_provider (NULL for global),
 * both owned by the caller. Reports an error and returns
 * MANIFEST_E_INVALID when the name is not a valid token name.
 */
int parser_resolve_token(Parser *p, const char *written, const SourceLoc *loc,
                         const char *what, char **ret_label, char **ret_provider);

/* "<E> needs a A attribute" unless value is set; true if it is. */
bool parser_require_attr(Parser *p, ElementKind kind, const char *value, const char *attr,
                         const SourceLoc *loc, const char *example);

/* Handlers of the D-Bus elements (manifest-dbus.c); values as in the attribute table. */
void parser_on_dbus(Parser *p, Frame *frame, const Frame *parent, const char **v);
void parser_on_owner(Parser *p, Frame *frame, const Frame *parent, const char **v);
void parser_on_node(Parser *p, Frame *frame, const Frame *parent, const char **v);
void parser_on_interface(Parser *p, Frame *frame, const Frame *parent, const char **v);
void parser_on_method(Parser *p, Frame *frame, const Frame *parent, const char **v);
void parser_on_signal(Parser *p, Frame *frame, const Frame *parent, const char **v);
void parser_on_property(Parser *p, Frame *frame, const Frame *parent, const char **v);
void parser_on_annotation(Parser *p, Frame *frame, const Frame *parent, const char **v);

/* After a parse without errors: resolve tokens, apply defaults, warn. */
int parser_finish(Parser *p);
