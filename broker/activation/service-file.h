/* service-file: D-Bus activation .service files and the table of them. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "macro.h"

/*
 * Return values: 0 on success; SERVICE_FILE_E_INVALID when a file is not
 * a valid service file (ServiceFileError says "file:line: message");
 * negative errno for failures (-ENOMEM, I/O errors, also described).
 */
enum {
        SERVICE_FILE_E_INVALID = 1,
};

typedef struct ServiceFileError {
        char message[1024];
} ServiceFileError;

/* The [D-BUS Service] group of one file. Strings are owned. */
typedef struct ServiceFile {
        char *path;                     /* where it was read from */
        char *name;                     /* Name=, a valid well-known bus name */
        char *exec;                     /* Exec=, as written */
        char **argv;                    /* Exec= split as a shell would (no expansion), NULL-terminated */
        char *user;                     /* (nullable) User= */
        char *systemd_service;          /* (nullable) SystemdService= */
        char *assumed_apparmor_label;   /* (nullable) AssumedAppArmorLabel= */
} ServiceFile;

/* Limits on what one file may hold. */
#define SERVICE_FILE_MAX_SIZE (64u * 1024u)
#define SERVICE_FILE_MAX_LINE 4096u
#define SERVICE_FILE_MAX_ARGS 256u

int service_file_parse(const char *path, const char *text, size_t size, ServiceFile **ret,
                       ServiceFileError *err);
int service_file_load(const char *path, ServiceFile **ret, ServiceFileError *err);
ServiceFile *service_file_free(ServiceFile *file);

/*
 * Splits an Exec= line into words as dbus-daemon does: blanks separate
 * words; '...' quotes literally; "..." quotes with \" \\ \$ \` and
 * \newline escapes; a backslash outside quotes escapes the next character.
 * No expansion of any kind. Unterminated quotes and empty lines are
 * SERVICE_FILE_E_INVALID.
 */
int service_exec_split(const char *exec, char ***ret_argv, const char **ret_problem);

char **service_strv_free(char **strv);

/* Every activatable name, from the servicedirs in priority order. */
typedef struct ServiceTable ServiceTable;

enum {
        /*
         * The system bus's rule: a file must be named after its Name=
         * ("org.foo.service" for org.foo), else it is skipped.
         */
        SERVICE_TABLE_STRICT_NAMING = 1u << 0,
};

/*
 * Reads every *.service file of each directory (missing directories are
 * fine). A malformed file, a misnamed one under STRICT_NAMING, or a name
 * an earlier file already provides is skipped with a "file:line: ..."
 * line in *ret_warnings (NULL-terminated; free with service_strv_free;
 * may be NULL).
 */
int service_table_load(char *const *dirs, size_t n_dirs, unsigned flags, ServiceTable **ret,
                       char ***ret_warnings);
ServiceTable *service_table_free(ServiceTable *table);

/* The file providing name, or NULL. */
const ServiceFile *service_table_lookup(const ServiceTable *table, const char *name);

/* The activatable names, sorted; valid while the table lives. */
size_t service_table_names(const ServiceTable *table, const char *const **ret_names);

DEFINE_CLEANUP(ServiceFile *, service_file_free);
DEFINE_CLEANUP(ServiceTable *, service_table_free);
