/* Building the model: constructors for its parts and array appends (for the parsers). */
#pragma once

#include <stddef.h>

#include "model.h"

/*
 * Each *_new() returns 0 or -ENOMEM; each *_free() is NULL-safe and returns
 * NULL. model_append() adds item to a pointer array "Foo **foos; size_t
 * n_foos" and returns 0 or -ENOMEM; on failure the caller still owns item.
 */
int model_append(void *array, size_t *n, void *item);
#define MODEL_APPEND(arr, n, item) model_append(&(arr), &(n), (item))

/* strdup that accepts NULL (returns 0 and *ret = NULL). */
int model_strdup(const char *s, char **ret);

int credential_new(CredentialKind kind, const char *name, const char *written,
                   const char *provider, SourceLoc loc, Credential **ret);
Credential *credential_free(Credential *c);

int request_target_new(const char *path, const char *package, const char *id,
                       SourceLoc loc, RequestTarget **ret);
RequestTarget *request_target_free(RequestTarget *t);

int request_new(SourceLoc loc, Request **ret);
Request *request_free(Request *r);

int provided_token_new(const char *package, const char *name, bool check_origin,
                       SourceLoc loc, ProvidedToken **ret);
ProvidedToken *provided_token_free(ProvidedToken *t);

/* label may be NULL unless kind == REQUIREMENT_TOKEN. */
int requirement_set(Requirement *req, RequirementKind kind, const char *token, SourceLoc loc);
void requirement_clear(Requirement *req);
int requirement_copy(Requirement *dst, const Requirement *src);
bool requirement_equal(const Requirement *a, const Requirement *b);

int member_new(MemberKind kind, const char *name, SourceLoc loc, Member **ret);
Member *member_free(Member *m);

int interface_new(const char *name, SourceLoc loc, Interface **ret);
Interface *interface_free(Interface *i);

int node_new(const char *path, SourceLoc loc, Node **ret);
Node *node_free(Node *n);

int dbus_name_new(const char *name, BusKind bus, SourceLoc loc, DbusName **ret);
DbusName *dbus_name_free(DbusName *d);
int dbus_name_add_owner_label(DbusName *d, const char *label, SourceLoc loc);
/* Forget owner label i (one a package may not name). */
void dbus_name_drop_owner_label(DbusName *d, size_t i);

int account_new(const char *user, const char *group, SourceLoc loc, Account **ret);
Account *account_free(Account *a);

int origin_grant_new(const char *origin, SourceLoc loc, OriginGrant **ret);
OriginGrant *origin_grant_free(OriginGrant *o);

int grant_new(const char *name, CredentialKind kind, GrantResult result,
              const Request *request, const Credential *credential, Grant **ret);
Grant *grant_free(Grant *g);

/* a + b + c in a new string (no printf: it is on the parser's hot path), or NULL. */
char *model_join3(const char *a, const char *b, const char *c);

/* Free every string of a string array and the array itself. */
void model_strv_free(char **strv, size_t n);
/* Append a copy of s; 0 or -ENOMEM. */
int model_strv_append(char ***strv, size_t *n, const char *s);
bool model_strv_contains(char *const *strv, size_t n, const char *s);

DEFINE_CLEANUP(Credential *, credential_free);
DEFINE_CLEANUP(RequestTarget *, request_target_free);
DEFINE_CLEANUP(Request *, request_free);
DEFINE_CLEANUP(ProvidedToken *, provided_token_free);
DEFINE_CLEANUP(Member *, member_free);
DEFINE_CLEANUP(Interface *, interface_free);
DEFINE_CLEANUP(Node *, node_free);
DEFINE_CLEANUP(DbusName *, dbus_name_free);
DEFINE_CLEANUP(Account *, account_free);
DEFINE_CLEANUP(OriginGrant *, origin_grant_free);
DEFINE_CLEANUP(Grant *, grant_free);
