/*
 * mssf-crypto: the key service from the command line, through libmssf
 * (mssf_crypto(3)), for scripts and for trying it by hand. It runs with
 * the caller's label and tokens like any app: what it may do is what the
 * program that runs it may do.
 *
 *   mssf-crypto encrypt [--token T]        stdin -> blob on stdout
 *   mssf-crypto decrypt                    blob on stdin -> plaintext
 *   mssf-crypto sign [--token T]           stdin -> signature
 *   mssf-crypto verify SIGNATURE-FILE      data on stdin; prints who signed
 *   mssf-crypto random N                   N random bytes
 *   mssf-crypto store [--token T] NAME     stdin -> item NAME
 *   mssf-crypto load [--token T] NAME      item NAME -> stdout
 *   mssf-crypto remove [--token T] NAME
 *   mssf-crypto mode                       tpm, software or unknown
 *
 * Exit status 0, or 1 with "mssf-crypto: ERRNO-NAME: the service's
 * words" on stderr (2 for a usage error). Input is read up to a bound
 * (the service's limit and a little more), so an oversized input is
 * refused by the library with the limit in words, never read whole.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mssf/mssf-crypto.h>

/* The most read from stdin: over the limit, so that the refusal names it. */
#define READ_MAX (MSSF_CRYPTO_MAX_INPUT + 4096)

static int usage(void) {
        fputs("usage: mssf-crypto encrypt|decrypt|sign [--token T]\n"
              "       mssf-crypto verify SIGNATURE-FILE\n"
              "       mssf-crypto random N\n"
              "       mssf-crypto store|load|remove [--token T] NAME\n"
              "       mssf-crypto mode\n", stderr);
        return 2;
}

static const char *errno_name(int e) {
        static const struct { int e; const char *name; } names[] = {
                { EINVAL, "EINVAL" }, { EMSGSIZE, "EMSGSIZE" }, { ENODATA, "ENODATA" },
                { EOPNOTSUPP, "EOPNOTSUPP" }, { EACCES, "EACCES" }, { EPERM, "EPERM" },
                { EBADMSG, "EBADMSG" }, { EPROTO, "EPROTO" }, { ENOKEY, "ENOKEY" },
                { EKEYREJECTED, "EKEYREJECTED" }, { ENOENT, "ENOENT" }, { EDQUOT, "EDQUOT" },
                { EKEYREVOKED, "EKEYREVOKED" }, { EXDEV, "EXDEV" }, { ENODEV, "ENODEV" },
                { EBUSY, "EBUSY" }, { EUCLEAN, "EUCLEAN" }, { EIO, "EIO" },
                { EHOSTUNREACH, "EHOSTUNREACH" }, { ETIMEDOUT, "ETIMEDOUT" },
        };

        for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
                if (names[i].e == e)
                        return names[i].name;
        return "error";
}

static int failed(int r) {
        fprintf(stderr, "mssf-crypto: %s: %s\n", errno_name(-r), mssf_crypto_last_error());
        return 1;
}

/* Up to READ_MAX bytes of fd into *ret (malloc'd). */
static int read_input(FILE *f, unsigned char **ret, size_t *ret_len) {
        unsigned char *buf = malloc(READ_MAX + 1);
        size_t n = 0, got;

        if (!buf)
                return -ENOMEM;
        while (n < READ_MAX + 1 && (got = fread(buf + n, 1, READ_MAX + 1 - n, f)) > 0)
                n += got;
        if (ferror(f)) {
                free(buf);
                return -EIO;
        }
        *ret = buf;
        *ret_len = n;
        return 0;
}

static int write_output(const void *data, size_t len) {
        return fwrite(data, 1, len, stdout) == len && fflush(stdout) == 0 ? 0 : 1;
}

static int with_input(const char *command, const char *token) {
        unsigned char *in = NULL;
        void *out = NULL;
        size_t in_len = 0, out_len = 0;
        int r = read_input(stdin, &in, &in_len);

        if (r < 0) {
                fprintf(stderr, "mssf-crypto: cannot read the input: %s\n", strerror(-r));
                return 1;
        }
        if (strcmp(command, "encrypt") == 0)
                r = mssf_crypto_encrypt(in, in_len, token, &out, &out_len);
        else if (strcmp(command, "decrypt") == 0)
                r = mssf_crypto_decrypt(in, in_len, &out, &out_len);
        else
                r = mssf_crypto_sign(in, in_len, token, &out, &out_len);
        mssf_crypto_free(in, in_len);
        if (r < 0)
                return failed(r);
        r = write_output(out, out_len);
        mssf_crypto_free(out, out_len);
        return r;
}

static int verify(const char *signature_file) {
        unsigned char *data = NULL, *signature = NULL;
        size_t data_len = 0, signature_len = 0;
        MssfCryptoSigner signer;
        FILE *f = fopen(signature_file, "rb");
        int r;

        if (!f) {
                fprintf(stderr, "mssf-crypto: %s: %s\n", signature_file, strerror(errno));
                return 1;
        }
        r = read_input(f, &signature, &signature_len);
        fclose(f);
        if (r == 0)
                r = read_input(stdin, &data, &data_len);
        if (r == 0)
                r = mssf_crypto_verify(data, data_len, signature, signature_len, &signer);
        free(data);
        free(signature);
        if (r < 0)
                return failed(r);
        printf("valid: %s %s, signed by %s, mode %s\n", signer.token ? "token" : "label", signer.key,
               signer.signer, mssf_crypto_mode_to_string(signer.mode));
        return 0;
}

static int item(const char *command, const char *token, const char *name) {
        unsigned char *in = NULL;
        void *out = NULL;
        size_t in_len = 0, out_len = 0;
        int r;

        if (strcmp(command, "remove") == 0)
                r = mssf_crypto_remove(token, name);
        else if (strcmp(command, "load") == 0) {
                r = mssf_crypto_load(token, name, &out, &out_len);
                if (r == 0) {
                        r = write_output(out, out_len) ? -EIO : 0;
                        mssf_crypto_free(out, out_len);
                }
        } else {
                r = read_input(stdin, &in, &in_len);
                if (r == 0)
                        r = mssf_crypto_store(token, name, in, in_len);
                mssf_crypto_free(in, in_len);
        }
        return r < 0 ? failed(r) : 0;
}

int main(int argc, char **argv) {
        static const struct option options[] = {
                { "token", required_argument, NULL, 't' },
                { "help", no_argument, NULL, 'h' },
                {},
        };
        const char *token = NULL, *command;
        unsigned char buf[MSSF_CRYPTO_MAX_RANDOM];
        MssfCryptoMode mode;
        int c, r;

        while ((c = getopt_long(argc, argv, "t:h", options, NULL)) >= 0)
                switch (c) {
                case 't':
                        token = optarg;
                        break;
                default:
                        return usage();
                }
        if (optind >= argc)
                return usage();
        command = argv[optind++];
        if (strcmp(command, "encrypt") == 0 || strcmp(command, "decrypt") == 0 || strcmp(command, "sign") == 0)
                return optind == argc && !(token && strcmp(command, "decrypt") == 0) ? with_input(command, token)
                                                                                     : usage();
        if (strcmp(command, "verify") == 0)
                return optind + 1 == argc && !token ? verify(argv[optind]) : usage();
        if (strcmp(command, "store") == 0 || strcmp(command, "load") == 0 || strcmp(command, "remove") == 0)
                return optind + 1 == argc ? item(command, token, argv[optind]) : usage();
        if (strcmp(command, "random") == 0 && optind + 1 == argc && !token) {
                char *end;
                unsigned long n = strtoul(argv[optind], &end, 10);

                if (*end || end == argv[optind])
                        return usage();
                if (n > sizeof(buf)) {
                        fprintf(stderr, "mssf-crypto: EMSGSIZE: at most %d random bytes at once\n",
                                MSSF_CRYPTO_MAX_RANDOM);
                        return 1;
                }
                r = mssf_crypto_random(buf, n);
                return r < 0 ? failed(r) : write_output(buf, n);
        }
        if (strcmp(command, "mode") == 0 && optind == argc && !token) {
                r = mssf_crypto_mode(&mode);
                if (r < 0)
                        return failed(r);
                printf("%s\n", mssf_crypto_mode_to_string(mode));
                return 0;
        }
        return usage();
}
