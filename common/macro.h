/* Small macros shared by every module: cleanup, ownership hand-over, sizes. */
#pragma once

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#define _cleanup_(f) __attribute__((cleanup(f)))
#define _unused_ __attribute__((unused))
#define _likely_(x) __builtin_expect(!!(x), 1)
#define _unlikely_(x) __builtin_expect(!!(x), 0)
#define _printf_(a, b) __attribute__((format(printf, a, b)))
#define _warn_unused_result_ __attribute__((warn_unused_result))

#define ELEMENTSOF(x) (sizeof(x) / sizeof((x)[0]))
#define ALIGN_TO(l, a) (((l) + (a) - 1) & ~((size_t)(a) - 1))

/* Hand ownership of *p to the caller and leave NULL behind. */
#define TAKE_PTR(p)                                     \
        ({                                              \
                __typeof__(p) *_pp = &(p);              \
                __typeof__(p) _p = *_pp;                \
                *_pp = NULL;                            \
                _p;                                     \
        })

#define TAKE_FD(fd)                                     \
        ({                                              \
                int *_pfd = &(fd);                      \
                int _fd = *_pfd;                        \
                *_pfd = -1;                             \
                _fd;                                    \
        })

/*
 * DEFINE_CLEANUP(Foo *, foo_free) defines foo_freep() for
 * _cleanup_(foo_freep) locals. foo_free() must be NULL-safe.
 */
#define DEFINE_CLEANUP(type, func)                      \
        static inline void func##p(type *p) {           \
                if (*p)                                 \
                        func(*p);                       \
        }

static inline void freep(void *p) {
        free(*(void **)p);
}
#define _cleanup_free_ _cleanup_(freep)

static inline int safe_close(int fd) {
        if (fd >= 0) {
                int saved = errno;
                close(fd);
                errno = saved;
        }
        return -1;
}

static inline void closep(int *fd) {
        safe_close(*fd);
}
#define _cleanup_close_ _cleanup_(closep)

/* The value of one hexadecimal digit (either case), or -1. */
static inline int hex_digit_value(char c) {
        if (c >= '0' && c <= '9')
                return c - '0';
        if (c >= 'a' && c <= 'f')
                return c - 'a' + 10;
        if (c >= 'A' && c <= 'F')
                return c - 'A' + 10;
        return -1;
}
