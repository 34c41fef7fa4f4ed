/*
 * The TPM's part of each start, in a child process made for it.
 *
 * Why: tpm2-tss keeps copies of the root that the service cannot wipe.
 * Esys_Create keeps the sensitive part it seals in the ESYS context,
 * which Esys_Finalize frees without wiping; Esys_Unseal decrypts the
 * response through an array on the stack that nothing clears. In a
 * child that exits when the TPM's part is done, those copies go with
 * its address space, and the service's own heap and stack never hold
 * them.
 *
 * How: the child writes its outcome, the root included, into a TpmWork
 * the parent mapped shared, locked (so never swapped) and out of core
 * dumps; the parent copies the root into its secure heap and the
 * mapping is wiped and unmapped. The child leaves with _exit(), so it
 * runs no exit handler and flushes no stdio buffer of the parent's. It
 * sends exactly the commands a start sent before, one attempt each;
 * nothing is retried when it fails or dies.
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cipher.h"
#include "tpmwork.h"

TpmWork *tpm_work_new(void) {
        TpmWork *work = mmap(NULL, sizeof(TpmWork), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);

        if (work == MAP_FAILED)
                return NULL;
        if (mlock(work, sizeof(TpmWork)) < 0) {
                munmap(work, sizeof(TpmWork));
                return NULL;
        }
        (void) madvise(work, sizeof(TpmWork), MADV_DONTDUMP);
        return work;
}

TpmWork *tpm_work_free(TpmWork *work) {
        if (!work)
                return NULL;
        explicit_bzero(work, sizeof(*work));
        munmap(work, sizeof(TpmWork));
        return NULL;
}

static bool same_name(const TpmName *a, const TpmName *b) {
        return a->size == b->size && memcmp(a->bytes, b->bytes, a->size) == 0;
}

/* A later start: the storage key as recorded, then the root unsealed; else which TPM this is. */
static int work_later(Tpm *tpm, TpmWork *work) {
        TpmName name;
        int r = tpm_storage_name(tpm, &name, work->err, sizeof(work->err));

        if (r != 0)
                return r;
        if (!same_name(&name, &work->storage_name)) {
                /* No Load that would fail: the endorsement key tells a cleared TPM from another one. */
                work->storage_changed = true;
                r = tpm_endorsement_name(tpm, &name, work->err, sizeof(work->err));
                if (r == 0)
                        work->endorsement_same = same_name(&name, &work->endorsement_name);
                return r;
        }
        return tpm_unseal(tpm, &work->sealed, work->auth, work->secret, ROOTKEY_SIZE, work->err,
                          sizeof(work->err));
}

/* A first start: the names, the TPM's part of the root, the root sealed and unsealed once to check it. */
static int work_first(Tpm *tpm, TpmWork *work) {
        int r = tpm_storage_name(tpm, &work->storage_name, work->err, sizeof(work->err));

        if (r == 0)
                r = tpm_endorsement_name(tpm, &work->endorsement_name, work->err, sizeof(work->err));
        if (r == 0)
                r = tpm_random(tpm, work->mix, ROOTKEY_SIZE, work->err, sizeof(work->err));
        if (r != 0)
                return r;
        for (size_t i = 0; i < ROOTKEY_SIZE; i++)
                work->secret[i] ^= work->mix[i];
        r = tpm_seal(tpm, work->secret, ROOTKEY_SIZE, work->auth, &work->sealed, work->err, sizeof(work->err));
        if (r == 0)
                r = tpm_unseal(tpm, &work->sealed, work->auth, work->check, ROOTKEY_SIZE, work->err,
                               sizeof(work->err));
        if (r == 0)
                work->mismatch = !cipher_equal(work->secret, work->check, ROOTKEY_SIZE);
        return r;
}

static _Noreturn void work_child(TpmWork *work) {
        Tpm *tpm = NULL;
        int r = tpm_open(work->tcti, &tpm, work->err, sizeof(work->err));

        work->opened = r == 0;
        if (r == 0)
                r = work->first ? work_first(tpm, work) : work_later(tpm, work);
        tpm_release(tpm);
        work->commands = tpm_commands(tpm);
        tpm_free(tpm);
        work->r = r;
        _exit(0);
}

int tpm_work_run(TpmWork *work) {
        int status;
        pid_t pid;

        /* What the child does not get to write stays a failure. */
        work->opened = false;
        work->r = -EIO;
        pid = fork();
        if (pid < 0)
                return -errno;
        if (pid == 0)
                work_child(work);
        while (waitpid(pid, &status, 0) < 0)
                if (errno != EINTR)
                        return -errno;
        return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -ECHILD;
}
