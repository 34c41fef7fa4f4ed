/*
 * The read-only commands: list, dump, explain.
 *
 * explain answers "would the bus let LABEL send this to NAME?" with the
 * bus's own decision code (policy_db_decide() over the installed
 * policy.db), so the answer cannot drift from what the bus does. Who
 * holds which token is the kernel's to say (access2, "LABEL TOKEN w");
 * under --root, or without smackfs, the rule store stands in for it: the
 * union of every file in accesses.d, as the kernel would have it after
 * boot. It covers the token and ownership part of mediation only; the
 * busconfig and label-to-label Smack checks depend on the running bus.
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "db-read.h"
#include "decide.h"
#include "dump.h"
#include "fileio.h"
#include "installed.h"
#include "model.h"
#include "context.h"
#include "explain.h"
#include "smack-kernel.h"
#include "smack-rules.h"

int tool_list(ToolContext *c) {
        char **names = NULL;
        size_t n = 0;
        int r;

        r = installed_names(&c->paths, &names, &n);
        if (r < 0)
                return r;
        for (size_t i = 0; i < n; i++) {
                _cleanup_free_ char *origin = NULL;

                r = installed_read_origin(&c->paths, names[i], &origin);
                if (r < 0)
                        break;
                fprintf(c->out, "%s\t%s\n", names[i], origin ? origin : "-");
        }
        for (size_t i = 0; i < n; i++)
                free(names[i]);
        free(names);
        return r < 0 ? r : 0;
}

static int open_policy(ToolContext *c, PolicyDb **ret) {
        int r = policy_db_open(c->paths.policy_db, ret);

        if (r == -ENOENT) {
                diagnostics_add(c->diag, DIAGNOSTIC_ERROR, c->paths.policy_db, 0, 0,
                                "no compiled policy: run 'mssf-policy compile'");
                return TOOL_E_NOT_INSTALLED;
        }
        if (r > 0) {
                diagnostics_add(c->diag, DIAGNOSTIC_ERROR, c->paths.policy_db, 0, 0,
                                "not a valid policy: %s; run 'mssf-policy compile'",
                                policy_db_error_to_string(r));
                return TOOL_E_INVALID;
        }
        return r;
}

int tool_dump(ToolContext *c) {
        _cleanup_(policy_db_freep) PolicyDb *db = NULL;
        int r;

        r = open_policy(c, &db);
        if (r != 0)
                return r;
        return policy_db_dump(db, c->out);
}

/* The rule store's union, as the kernel would load it at boot. */
static int read_rule_store(const char *dir_path, SmackRules *rules) {
        DIR *dir = opendir(dir_path);
        struct dirent *entry;
        int r = 0;

        if (!dir)
                return errno == ENOENT ? 0 : -errno;
        while ((entry = readdir(dir))) {
                _cleanup_free_ char *path = NULL, *text = NULL;

                if (entry->d_name[0] == '.' || fileio_is_temporary(entry->d_name))
                        continue;
                path = fileio_join(dir_path, entry->d_name);
                if (!path) {
                        r = -ENOMEM;
                        break;
                }
                if (fileio_read(path, &text, NULL) < 0)
                        continue;
                r = smack_rules_parse(rules, text, false, NULL);
                if (r < 0)
                        break;
                r = 0;
        }
        closedir(dir);
        return r;
}

typedef struct Oracle {
        const char *smackfs;            /* (nullable) ask the kernel */
        SmackRules *store;              /* otherwise the rule store */
} Oracle;

static int oracle_has_token(const char *label, const char *token, void *userdata) {
        const Oracle *oracle = userdata;

        if (oracle->smackfs)
                return smack_kernel_access(oracle->smackfs, label, token, "w");
        return (smack_rules_get(oracle->store, label, token) & SMACK_ACCESS_WRITE) != 0;
}

static const char *or_dash(const char *s) {
        return s ? s : "-";
}

/* For an allowed message: the rule that let it through, from the policy itself. */
static void print_allowing_rule(ToolContext *c, const PolicyDb *db, const ExplainQuery *q,
                                const PolicyMessage *m) {
        PolicyKind kind = q->signal ? POLICY_KIND_SIGNAL : POLICY_KIND_METHOD;
        PolicyRequirement req = {};

        if (!policy_db_declares_name(db, q->destination)) {
                fprintf(c->out, "reason: no manifest declares %s\n", q->destination);
                return;
        }
        if (policy_db_lookup(db, q->destination, kind, m->path, m->interface, m->member, &req) != 0) {
                fprintf(c->out, "reason: no rule covers it, and an uncovered %s is open\n",
                        policy_kind_to_string(kind));
                return;
        }
        fprintf(c->out, "rule: name %s, %s %s %s.%s ->", req.name, policy_kind_to_string(kind),
                req.path, or_dash(req.interface), or_dash(req.member));
        if (req.n_tokens == 0)
                fprintf(c->out, " open");
        for (size_t i = 0; i < req.n_tokens; i++)
                fprintf(c->out, " %s", policy_requirement_token(&req, i));
        fprintf(c->out, "\n");
}

static void print_denial(ToolContext *c, int r, const PolicyDecision *d) {
        if (r < 0) {
                fprintf(c->out, "reason: the decision failed (%s), which denies\n", strerror(-r));
                return;
        }
        fprintf(c->out, "reason: %s\n", or_dash(policy_decide_outcome_to_string(r)));
        fprintf(c->out, "rule: name %s, %s %s %s.%s\n", or_dash(d->name),
                policy_kind_to_string(d->kind), or_dash(d->path), or_dash(d->interface),
                or_dash(d->member));
        if (d->token)
                fprintf(c->out, "token: %s (label %s does not hold it)\n", d->token,
                        or_dash(d->label));
}

int tool_explain(ToolContext *c, const ExplainQuery *query) {
        _cleanup_(policy_db_freep) PolicyDb *db = NULL;
        _cleanup_(smack_rules_freep) SmackRules *store = NULL;
        const char *names[] = { query->destination };
        PolicyMessage message = {
                .type = query->signal ? POLICY_MESSAGE_SIGNAL : POLICY_MESSAGE_METHOD_CALL,
                .path = query->path ? query->path : "/",
                .interface = query->interface,
                .member = query->member,
        };
        PolicyDecision decision = {};
        Oracle oracle = { .smackfs = c->paths.smackfs };
        int r;

        r = open_policy(c, &db);
        if (r != 0)
                return r;
        if (!oracle.smackfs) {
                r = smack_rules_new(&store);
                if (r >= 0)
                        r = read_rule_store(c->paths.rules_dir, store);
                if (r < 0)
                        return r;
                oracle.store = store;
        }
        r = policy_db_decide(db, names, 1, query->label, &message, oracle_has_token, &oracle,
                             &decision);
        if (r == -EINVAL)
                return r;
        fprintf(c->out, "%s\n", r == 0 ? "allowed" : "denied");
        if (r == 0)
                print_allowing_rule(c, db, query, &message);
        else
                print_denial(c, r, &decision);
        fprintf(c->out, "tokens from: %s\n", oracle.smackfs ? "the kernel (access2)"
                                                            : "the rule store");
        return r == 0 ? 0 : TOOL_E_DENIED;
}
