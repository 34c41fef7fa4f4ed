/* rpm's transaction plugin interface: the public header where librpm has one, else rpm 4.18's layout. */
#pragma once

#include <sys/types.h>

#include <rpm/rpmfi.h>
#include <rpm/rpmtypes.h>

#if MSSF_RPM_PUBLIC_PLUGIN_H
#include <rpm/rpmplugin.h>
#else
/*
 * librpm 4.18 (Debian 12's librpm-dev) installs no plugin header: rpm
 * loads a plugin with dlopen() and reads its NAME_hooks symbol as a
 * struct rpmPluginHooks_s, which rpm 4.18's lib/rpmplugin.h declares.
 * These declarations follow that layout field by field (the same in
 * 4.19 and 4.20, whose public header meson uses instead); a field out of
 * order would have rpm call the wrong hook, so the order below is rpm's
 * and must not change. The functions are librpm's own exports.
 */
typedef rpmFlags rpmFsmOp;

#define XFA_MASK 0x0000ffff
#define XFO_ACTION(_a) ((_a) & XFA_MASK)
#define FAF_UNOWNED (1u << 31)

typedef rpmRC (*plugin_init_func)(rpmPlugin plugin, rpmts ts);
typedef void (*plugin_cleanup_func)(rpmPlugin plugin);
typedef rpmRC (*plugin_tsm_pre_func)(rpmPlugin plugin, rpmts ts);
typedef rpmRC (*plugin_tsm_post_func)(rpmPlugin plugin, rpmts ts, int res);
typedef rpmRC (*plugin_psm_pre_func)(rpmPlugin plugin, rpmte te);
typedef rpmRC (*plugin_psm_post_func)(rpmPlugin plugin, rpmte te, int res);
typedef rpmRC (*plugin_scriptlet_pre_func)(rpmPlugin plugin, const char *s_name, int type);
typedef rpmRC (*plugin_scriptlet_fork_post_func)(rpmPlugin plugin, const char *path, int type);
typedef rpmRC (*plugin_scriptlet_post_func)(rpmPlugin plugin, const char *s_name, int type,
                                            int res);
typedef rpmRC (*plugin_fsm_file_pre_func)(rpmPlugin plugin, rpmfi fi, const char *path,
                                          mode_t file_mode, rpmFsmOp op);
typedef rpmRC (*plugin_fsm_file_post_func)(rpmPlugin plugin, rpmfi fi, const char *path,
                                           mode_t file_mode, rpmFsmOp op, int res);
typedef rpmRC (*plugin_fsm_file_prepare_func)(rpmPlugin plugin, rpmfi fi, int fd,
                                              const char *path, const char *dest,
                                              mode_t file_mode, rpmFsmOp op);

struct rpmPluginHooks_s {
        plugin_init_func init;
        plugin_cleanup_func cleanup;
        plugin_tsm_pre_func tsm_pre;
        plugin_tsm_post_func tsm_post;
        plugin_psm_pre_func psm_pre;
        plugin_psm_post_func psm_post;
        plugin_scriptlet_pre_func scriptlet_pre;
        plugin_scriptlet_fork_post_func scriptlet_fork_post;
        plugin_scriptlet_post_func scriptlet_post;
        plugin_fsm_file_pre_func fsm_file_pre;
        plugin_fsm_file_post_func fsm_file_post;
        plugin_fsm_file_prepare_func fsm_file_prepare;
};

void *rpmPluginGetData(rpmPlugin plugin);
void rpmPluginSetData(rpmPlugin plugin, void *data);
#endif
