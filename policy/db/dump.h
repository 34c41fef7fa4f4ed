/* A human-readable, deterministic text form of a loaded policy. */
#pragma once

#include <stdio.h>

#include "db-read.h"

/*
 * Writes db to f in file order (names sorted, rules sorted), one fact per
 * line; the format is in docs/policy-db.md. The same file always gives the
 * same text, so tests compare it with golden files. 0, or -EIO when
 * writing failed.
 */
int policy_db_dump(const PolicyDb *db, FILE *f);
