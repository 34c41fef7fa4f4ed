#!/usr/bin/env python3
"""Check that the committed corpus holds exactly what gen-corpus.py makes.

Usage: check-corpus.py GEN-CORPUS CORPUS-DIR

Every valid-*/invalid-* seed the generator writes must be in CORPUS-DIR
with the same bytes, and CORPUS-DIR must hold no stale seed the
generator no longer writes. Other files (inputs grown by libFuzzer) are
left alone.
"""

import os
import subprocess
import sys
import tempfile


def main():
    gen, corpus = sys.argv[1], sys.argv[2]
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, gen, tmp], check=True)
        generated = set(os.listdir(tmp))
        for name in sorted(generated):
            path = os.path.join(corpus, name)
            if not os.path.exists(path):
                print('missing from the corpus: ' + name)
                failures += 1
            elif open(path, 'rb').read() != open(os.path.join(tmp, name), 'rb').read():
                print('differs from the generator: ' + name)
                failures += 1
        for name in sorted(os.listdir(corpus)):
            if name.startswith(('valid-', 'invalid-')) and name not in generated:
                print('stale seed, not generated any more: ' + name)
                failures += 1
    print('%d seeds checked, %d failures' % (len(generated), failures))
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
