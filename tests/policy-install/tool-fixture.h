/* A scratch --root for the operation tests: manifests, binaries, a stand-in smackfs. */
#pragma once

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fileio.h"
#include "context.h"
#include "install.h"
#include "smack-rules.h"

typedef struct ToolFixture {
        char root[64];
        char smackfs[96];
        char input[96];
} ToolFixture;

static inline void tool_fixture_write(const char *dir, const char *name, const char *text) {
        _cleanup_free_ char *path = fileio_join(dir, name);

        assert_int_equal(fileio_write_atomic(path, text, strlen(text), 0644), 0);
}

static inline ToolFixture *tool_fixture_new(const char *name) {
        ToolFixture *f = calloc(1, sizeof(*f));

        assert_non_null(f);
        snprintf(f->root, sizeof(f->root), "/tmp/%s.XXXXXX", name);
        assert_non_null(mkdtemp(f->root));
        snprintf(f->smackfs, sizeof(f->smackfs), "%s/smackfs", f->root);
        snprintf(f->input, sizeof(f->input), "%s/input", f->root);
        assert_int_equal(fileio_mkdir_p(f->smackfs, 0755), 0);
        assert_int_equal(fileio_mkdir_p(f->input, 0755), 0);
        tool_fixture_write(f->smackfs, "load2", "");
        return f;
}

static inline int tool_fixture_remove_entry(const char *path, const struct stat *st, int type,
                                            struct FTW *ftw) {
        return remove(path);
}

static inline void tool_fixture_free(ToolFixture *f) {
        nftw(f->root, tool_fixture_remove_entry, 16, FTW_DEPTH | FTW_PHYS);
        free(f);
}

/* Run an operation with --root and the stand-in smackfs; out goes to *ret_out (nullable). */
typedef int (*ToolOperation)(ToolContext *c, void *userdata);

static inline int tool_fixture_run(const ToolFixture *f, ToolOperation operation, void *userdata,
                                   char **ret_out) {
        _cleanup_(diagnostics_freep) Diagnostics *diag = NULL;
        ToolPathOptions options = { .root = f->root };
        ToolContext c = {};
        char *out = NULL;
        size_t size = 0;
        int r;

        options.paths[TOOL_PATH_SMACKFS] = f->smackfs;
        assert_int_equal(diagnostics_new(&diag), 0);
        assert_int_equal(tool_paths_init(&c.paths, &options), 0);
        c.diag = diag;
        c.out = open_memstream(&out, &size);
        c.err = stderr;
        assert_non_null(c.out);
        r = operation(&c, userdata);
        fclose(c.out);
        tool_paths_deinit(&c.paths);
        if (ret_out)
                *ret_out = out;
        else
                free(out);
        return r;
}

typedef struct InstallArgs {
        const char *package;
        const char *manifest;           /* name in f->input */
        const char *origin;
        const ToolFixture *fixture;
} InstallArgs;

static inline int tool_fixture_do_install(ToolContext *c, void *userdata) {
        const InstallArgs *a = userdata;
        _cleanup_free_ char *path = fileio_join(a->fixture->input, a->manifest);

        return tool_install(c, a->package, path, a->origin);
}

static inline int tool_fixture_install(const ToolFixture *f, const char *package,
                                       const char *manifest, const char *origin) {
        InstallArgs a = { package, manifest, origin, f };

        return tool_fixture_run(f, tool_fixture_do_install, &a, NULL);
}

static inline int tool_fixture_do_remove(ToolContext *c, void *userdata) {
        return tool_remove(c, userdata);
}

static inline int tool_fixture_remove(const ToolFixture *f, const char *package) {
        return tool_fixture_run(f, tool_fixture_do_remove, (void *) package, NULL);
}

/* The stand-in kernel's access for a pair (last write wins). */
static inline unsigned tool_fixture_kernel(const ToolFixture *f, const char *subject,
                                           const char *object) {
        _cleanup_(smack_rules_freep) SmackRules *rules = NULL;
        _cleanup_free_ char *path = fileio_join(f->smackfs, "load2"), *text = NULL;

        assert_int_equal(fileio_read(path, &text, NULL), 0);
        assert_int_equal(smack_rules_new(&rules), 0);
        assert_int_equal(smack_rules_parse(rules, text, true, NULL), 0);
        return smack_rules_get(rules, subject, object);
}
