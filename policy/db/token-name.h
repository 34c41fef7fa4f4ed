/* Token names as a package writes them, resolved to the token's Smack label. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/*
 * One rule for every place a token is named: manifests (policy/manifest
 * resolves annotation values, own="...", requested and provided
 * credentials with it) and the bus (org.mssf.Broker1.CheckToken resolves
 * the asking service's token names with it, relative to the package it
 * speaks for: the declarer of the name it serves, else its label's, with
 * policy_db_token_provided() over the compiled policy). So a service asks
 * about "work" exactly as its manifest would guard with it.
 */

/* Expected outcomes (positive): the name is not a token name. */
enum {
        POLICY_TOKEN_E_INVALID = 80,    /* bad characters, too long, an empty part, a second "::" */
        POLICY_TOKEN_E_POSIX,           /* UID::, GID::, GRP::, CAP:: name a POSIX credential */
        POLICY_TOKEN_E_PACKAGE,         /* "pkg::Token" where pkg is not a valid package name */
        POLICY_TOKEN_E_TOO_LONG,        /* "package::Token" would exceed a Smack label's 255 bytes */
};

/* A resolved label fits in this many bytes, NUL included. */
#define POLICY_TOKEN_LABEL_SIZE 256

/* Whether package provides a token it calls name (bare, as its manifest declares it). */
typedef bool (*PolicyTokenProvided)(const char *package, const char *name, void *userdata);

/*
 * The Smack label of the token package names as written
 * (docs/manifest.md, "Credential and token names"):
 *  - "pkg::Token" is exactly that label;
 *  - a bare "Token" is "package::Token" when provided(package, "Token"),
 *    else the global token "Token".
 * package NULL: nobody's own token (a bare name is global). ret_label
 * gets the label (size bytes, at least POLICY_TOKEN_LABEL_SIZE); on an
 * error it is not written. 0 or POLICY_TOKEN_E_*; -EINVAL for a missing
 * argument. No allocation, any input.
 */
int policy_token_resolve(const char *written, const char *package, PolicyTokenProvided provided,
                         void *userdata, char *ret_label, size_t size);

/* A short English description of a POLICY_TOKEN_E_* code, or NULL. */
const char *policy_token_error_to_string(int code);

/*
 * A PolicyTokenProvided over a compiled policy (userdata: the PolicyDb):
 * whether "package::name" is among the tokens installed packages provide.
 */
bool policy_db_token_provided(const char *package, const char *name, void *userdata);
