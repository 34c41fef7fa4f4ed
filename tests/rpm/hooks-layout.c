/*
 * rpm-hooks.h's own declaration of rpm's plugin interface, the one the
 * plugin is built with where librpm has no public plugin header (4.18),
 * checked against librpm's public <rpm/rpmplugin.h> (4.20 on): rpm finds
 * a plugin's NAME_hooks with dlsym() and calls through it as its own
 * struct rpmPluginHooks_s, so a plugin built on 4.18 loads correctly
 * into a later rpm only if every field sits at the same offset with the
 * same function type. Nothing checks that at run time; this file fails
 * to compile if it is not so. Compile only (test-librpm420.sh builds it
 * against Debian trixie's librpm-dev).
 *
 * Both declarations cannot share one translation unit under rpm's
 * names, so rpm-hooks.h's is included first under other names, then the
 * public header under rpm's.
 */
#include <stddef.h>

#define rpmPluginHooks_s fallback_hooks_s
#define rpmFsmOp fallback_fsm_op
#define plugin_init_func fallback_init_func
#define plugin_cleanup_func fallback_cleanup_func
#define plugin_tsm_pre_func fallback_tsm_pre_func
#define plugin_tsm_post_func fallback_tsm_post_func
#define plugin_psm_pre_func fallback_psm_pre_func
#define plugin_psm_post_func fallback_psm_post_func
#define plugin_scriptlet_pre_func fallback_scriptlet_pre_func
#define plugin_scriptlet_fork_post_func fallback_scriptlet_fork_post_func
#define plugin_scriptlet_post_func fallback_scriptlet_post_func
#define plugin_fsm_file_pre_func fallback_fsm_file_pre_func
#define plugin_fsm_file_post_func fallback_fsm_file_post_func
#define plugin_fsm_file_prepare_func fallback_fsm_file_prepare_func
#undef MSSF_RPM_PUBLIC_PLUGIN_H
#define MSSF_RPM_PUBLIC_PLUGIN_H 0
#include "rpm-hooks.h"

/* The file action flags the plugin reads from rpmFsmOp, as 4.18 defines them. */
_Static_assert(XFO_ACTION(0xabcd1234u) == 0x1234u, "XFO_ACTION keeps the low 16 bits");
_Static_assert(FAF_UNOWNED == 0x80000000u, "FAF_UNOWNED is bit 31");
#undef XFA_MASK
#undef XFO_ACTION
#undef FAF_UNOWNED

#undef rpmPluginHooks_s
#undef rpmFsmOp
#undef plugin_init_func
#undef plugin_cleanup_func
#undef plugin_tsm_pre_func
#undef plugin_tsm_post_func
#undef plugin_psm_pre_func
#undef plugin_psm_post_func
#undef plugin_scriptlet_pre_func
#undef plugin_scriptlet_fork_post_func
#undef plugin_scriptlet_post_func
#undef plugin_fsm_file_pre_func
#undef plugin_fsm_file_post_func
#undef plugin_fsm_file_prepare_func
/* Its rpmPluginGetData() and rpmPluginSetData() are redeclared here: a different prototype is an error. */
#include <rpm/rpmplugin.h>

_Static_assert(XFO_ACTION(0xabcd1234u) == 0x1234u, "XFO_ACTION keeps the low 16 bits");
_Static_assert((unsigned) FAF_UNOWNED == 0x80000000u, "FAF_UNOWNED is bit 31");
_Static_assert(__builtin_types_compatible_p(fallback_fsm_op, rpmFsmOp), "rpmFsmOp");

/* Same size, and each field at the same offset with a compatible type: the same fields in the same order. */
_Static_assert(sizeof(struct fallback_hooks_s) == sizeof(struct rpmPluginHooks_s),
               "struct rpmPluginHooks_s has another size in librpm's public header");

#define SAME_FIELD(field)                                                                        \
        _Static_assert(offsetof(struct fallback_hooks_s, field) ==                               \
                               offsetof(struct rpmPluginHooks_s, field),                          \
                       "rpmPluginHooks_s." #field " is at another offset in librpm's header");   \
        _Static_assert(__builtin_types_compatible_p(__typeof__(((struct fallback_hooks_s *) 0)->field), \
                                                    __typeof__(((struct rpmPluginHooks_s *) 0)->field)), \
                       "rpmPluginHooks_s." #field " has another type in librpm's header")

SAME_FIELD(init);
SAME_FIELD(cleanup);
SAME_FIELD(tsm_pre);
SAME_FIELD(tsm_post);
SAME_FIELD(psm_pre);
SAME_FIELD(psm_post);
SAME_FIELD(scriptlet_pre);
SAME_FIELD(scriptlet_fork_post);
SAME_FIELD(scriptlet_post);
SAME_FIELD(fsm_file_pre);
SAME_FIELD(fsm_file_post);
SAME_FIELD(fsm_file_prepare);
