/*
 * activation: the bookkeeping of bus activation, without the I/O.
 *
 * A message to an activatable name that has no owner, or a
 * StartServiceByName call, becomes a waiter of that name's pending start.
 * The first waiter creates the start (the caller then launches the
 * service: spawns Exec= or asks systemd); later ones join it. When the
 * name gets an owner, or the start fails or times out, the caller takes
 * every waiter, in arrival order, and delivers or fails each exactly once:
 * a waiter lives in one pending start only and is handed over once.
 *
 * Bounds: max_pending_service_starts starts, ACTIVATION_MAX_QUEUED waiters
 * each, ACTIVATION_MAX_ENV environment entries. A requester that leaves is
 * forgotten so nothing is delivered on its behalf afterwards.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "activation.h"
#include "message.h"
#include "service-file.h"
#include "strmap.h"

typedef struct Pending {
        char *name;                     /* (owned) map key */
        char *unit;                     /* (owned, nullable) SystemdService= */
        pid_t pid;                      /* 0 until spawned (or never: systemd) */
        uint64_t deadline;
        ActivationQueued *waiters;      /* (owned) */
        size_t n_waiters;
        size_t cap;
} Pending;

struct Activation {
        ServiceTable *services;         /* (owned, nullable) */
        StrMap pending;                 /* name -> Pending (owned) */
        size_t max_pending;
        uint64_t timeout;
        char **env;                     /* (owned) "KEY=VALUE", NULL-terminated */
        size_t n_env;
};

int activation_new(size_t max_pending_starts, uint64_t start_timeout_usec, Activation **ret) {
        Activation *a = calloc(1, sizeof(*a));
        if (!a)
                return -ENOMEM;
        a->env = calloc(1, sizeof(char *));
        if (!a->env) {
                free(a);
                return -ENOMEM;
        }
        strmap_init(&a->pending);
        a->max_pending = max_pending_starts;
        a->timeout = start_timeout_usec;
        *ret = a;
        return 0;
}

void activation_queued_free(ActivationQueued *waiters, size_t n) {
        for (size_t i = 0; i < n; i++)
                message_unref(waiters[i].message);
        free(waiters);
}

static void pending_free(Pending *p) {
        activation_queued_free(p->waiters, p->n_waiters);
        free(p->unit);
        free(p->name);
        free(p);
}

Activation *activation_free(Activation *a) {
        if (!a)
                return NULL;
        size_t iter = 0;
        const char *key;
        void *value;
        while (strmap_next(&a->pending, &iter, &key, &value))
                pending_free(value);
        strmap_deinit(&a->pending);
        service_table_free(a->services);
        for (size_t i = 0; i < a->n_env; i++)
                free(a->env[i]);
        free(a->env);
        free(a);
        return NULL;
}

void activation_set_services(Activation *a, ServiceTable *table) {
        service_table_free(a->services);
        a->services = table;
}

const ServiceTable *activation_get_services(const Activation *a) {
        return a->services;
}

static int pending_new(Activation *a, const ServiceFile *file, uint64_t now, Pending **ret) {
        Pending *p = calloc(1, sizeof(*p));
        if (!p || !(p->name = strdup(file->name)))
                goto oom;
        if (file->systemd_service && !(p->unit = strdup(file->systemd_service)))
                goto oom;
        p->deadline = a->timeout > UINT64_MAX - now ? UINT64_MAX : now + a->timeout;
        int r = strmap_put(&a->pending, p->name, p);
        if (r < 0) {
                pending_free(p);
                return r;
        }
        *ret = p;
        return 0;
oom:
        if (p)
                pending_free(p);
        return -ENOMEM;
}

static int pending_add(Pending *p, const ActivationQueued *waiter) {
        if (p->n_waiters >= ACTIVATION_MAX_QUEUED)
                return ACTIVATION_E_QUEUE_FULL;
        if (p->n_waiters == p->cap) {
                size_t cap = p->cap ? p->cap * 2 : 4;
                ActivationQueued *grown = reallocarray(p->waiters, cap, sizeof(*grown));
                if (!grown)
                        return -ENOMEM;
                p->waiters = grown;
                p->cap = cap;
        }
        p->waiters[p->n_waiters] = *waiter;
        p->waiters[p->n_waiters].message = message_ref(waiter->message);
        p->n_waiters++;
        return 0;
}

int activation_enqueue(Activation *a, const char *name, const ActivationQueued *waiter,
                       uint64_t now_usec, bool *ret_new_start, const ServiceFile **ret_file) {
        const ServiceFile *file = service_table_lookup(a->services, name);
        Pending *p = strmap_get(&a->pending, name);
        bool new_start = false;
        if (!file && !p)
                return ACTIVATION_E_UNKNOWN;
        if (!p) {
                if (strmap_size(&a->pending) >= a->max_pending)
                        return ACTIVATION_E_LIMIT;
                int r = pending_new(a, file, now_usec, &p);
                if (r < 0)
                        return r;
                new_start = true;
        }
        int r = pending_add(p, waiter);
        if (r != 0) {
                if (new_start)
                        pending_free(strmap_remove(&a->pending, name));
                return r;
        }
        *ret_new_start = new_start;
        if (ret_file)
                *ret_file = file;
        return 0;
}

bool activation_is_pending(const Activation *a, const char *name) {
        return strmap_get(&a->pending, name) != NULL;
}

void activation_set_pid(Activation *a, const char *name, pid_t pid) {
        Pending *p = strmap_get(&a->pending, name);
        if (p)
                p->pid = pid;
}

size_t activation_take(Activation *a, const char *name, ActivationQueued **ret_waiters) {
        Pending *p = strmap_remove(&a->pending, name);
        *ret_waiters = NULL;
        if (!p)
                return 0;
        size_t n = p->n_waiters;
        *ret_waiters = TAKE_PTR(p->waiters);
        p->n_waiters = 0;
        pending_free(p);
        return n;
}

const char *activation_name_for_pid(const Activation *a, pid_t pid) {
        size_t iter = 0;
        const char *key;
        void *value;
        while (pid > 0 && strmap_next(&a->pending, &iter, &key, &value))
                if (((Pending *)value)->pid == pid)
                        return key;
        return NULL;
}

const char *activation_name_for_unit(const Activation *a, const char *unit) {
        size_t iter = 0;
        const char *key;
        void *value;
        while (strmap_next(&a->pending, &iter, &key, &value)) {
                const Pending *p = value;
                if (p->unit && !strcmp(p->unit, unit))
                        return key;
        }
        return NULL;
}

void activation_forget_peer(Activation *a, void *peer) {
        size_t iter = 0;
        const char *key;
        void *value;
        while (strmap_next(&a->pending, &iter, &key, &value)) {
                Pending *p = value;
                size_t kept = 0;
                for (size_t i = 0; i < p->n_waiters; i++) {
                        if (p->waiters[i].peer == peer)
                                message_unref(p->waiters[i].message);
                        else
                                p->waiters[kept++] = p->waiters[i];
                }
                p->n_waiters = kept;
        }
}

uint64_t activation_next_deadline(const Activation *a) {
        uint64_t next = UINT64_MAX;
        size_t iter = 0;
        const char *key;
        void *value;
        while (strmap_next(&a->pending, &iter, &key, &value))
                if (((Pending *)value)->deadline < next)
                        next = ((Pending *)value)->deadline;
        return next;
}

const char *activation_first_expired(const Activation *a, uint64_t now_usec) {
        size_t iter = 0;
        const char *key;
        void *value;
        while (strmap_next(&a->pending, &iter, &key, &value))
                if (((Pending *)value)->deadline <= now_usec)
                        return key;
        return NULL;
}

static bool env_key_valid(const char *key) {
        if (!*key || strlen(key) >= ACTIVATION_MAX_ENV_SIZE)
                return false;
        for (const char *c = key; *c; c++)
                if (*c == '=')
                        return false;
        return true;
}

int activation_set_env(Activation *a, const char *key, const char *value) {
        if (!env_key_valid(key) || strlen(value) >= ACTIVATION_MAX_ENV_SIZE)
                return ACTIVATION_E_INVALID;
        char *entry = NULL;
        size_t key_len = strlen(key);
        if (asprintf(&entry, "%s=%s", key, value) < 0)
                return -ENOMEM;
        for (size_t i = 0; i < a->n_env; i++)
                if (!strncmp(a->env[i], entry, key_len + 1)) {
                        free(a->env[i]);
                        a->env[i] = entry;
                        return 0;
                }
        if (a->n_env >= ACTIVATION_MAX_ENV) {
                free(entry);
                return ACTIVATION_E_LIMIT;
        }
        char **grown = reallocarray(a->env, a->n_env + 2, sizeof(char *));
        if (!grown) {
                free(entry);
                return -ENOMEM;
        }
        a->env = grown;
        a->env[a->n_env++] = entry;
        a->env[a->n_env] = NULL;
        return 0;
}

char *const *activation_get_env(Activation *a) {
        return a->env;
}
