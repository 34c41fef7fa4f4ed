#!/usr/bin/env python3
"""Generate the wire corpus: D-Bus messages, valid and invalid.

Usage: gen-corpus.py OUTDIR

Every file is one message. Names say what the test suite expects:
valid-* must be accepted by a conforming parser, invalid-* rejected.
The marshaller here is written from the specification, independently of
broker/wire, so the corpus also checks the parser against a second
implementation. Both byte orders are generated for every valid shape.
"""

import os
import struct
import sys


class ObjPath(str):
    pass


class Sig(str):
    pass


def complete_type_len(sig, i=0):
    c = sig[i]
    if c == 'a':
        return 1 + complete_type_len(sig, i + 1)
    if c in '({':
        close = ')' if c == '(' else '}'
        j = i + 1
        while sig[j] != close:
            j += complete_type_len(sig, j)
        return j - i + 1
    return 1


def split_types(sig):
    out, i = [], 0
    while i < len(sig):
        n = complete_type_len(sig, i)
        out.append(sig[i:i + n])
        i += n
    return out


ALIGN = {'y': 1, 'g': 1, 'v': 1, 'n': 2, 'q': 2, 'b': 4, 'i': 4, 'u': 4,
         'h': 4, 's': 4, 'o': 4, 'a': 4, 'x': 8, 't': 8, 'd': 8,
         '(': 8, '{': 8}
FIXED = {'y': 'B', 'b': 'I', 'n': 'h', 'q': 'H', 'i': 'i', 'u': 'I',
         'h': 'I', 'x': 'q', 't': 'Q', 'd': 'd'}


class Writer:
    def __init__(self, endian):
        self.buf = bytearray()
        self.e = '<' if endian == 'l' else '>'

    def pad(self, a):
        while len(self.buf) % a:
            self.buf.append(0)

    def put(self, fmt, v):
        self.buf += struct.pack(self.e + fmt, v)

    def value(self, t, v):
        c = t[0]
        self.pad(ALIGN[c])
        if c in FIXED:
            self.put(FIXED[c], v)
        elif c in 'so':
            b = v.encode() if isinstance(v, str) else v
            self.put('I', len(b))
            self.buf += b + b'\0'
        elif c == 'g':
            b = v.encode()
            self.buf.append(len(b))
            self.buf += b + b'\0'
        elif c == 'v':
            vt, vv = v
            self.value('g', vt)
            self.value(vt, vv)
        elif c == 'a':
            et = t[1:]
            self.put('I', 0)
            at = len(self.buf) - 4
            self.pad(ALIGN[et[0]])
            start = len(self.buf)
            for item in v:
                self.value(et, item)
            struct.pack_into(self.e + 'I', self.buf, at, len(self.buf) - start)
        elif c in '({':
            for mt, mv in zip(split_types(t[1:-1]), v):
                self.value(mt, mv)
        else:
            raise ValueError(t)


FIELD_SIG = {1: 'o', 2: 's', 3: 's', 4: 's', 5: 'u', 6: 's', 7: 's',
             8: 'g', 9: 'u'}


def message(mtype=1, fields=None, sig='', body=(), endian='l', serial=7,
            flags=0, version=1, raw_fields=None):
    """fields: list of (code, value) or (code, sig, value)."""
    bw = Writer(endian)
    for t, v in zip(split_types(sig), body):
        bw.value(t, v)
    fl = []
    for f in fields or []:
        if len(f) == 2:
            fl.append((f[0], (FIELD_SIG[f[0]], f[1])))
        else:
            fl.append((f[0], (f[1], f[2])))
    if sig:
        fl.append((8, ('g', Sig(sig))))
    w = Writer(endian)
    w.buf += endian.encode() + bytes([mtype, flags, version])
    w.put('I', len(bw.buf))
    w.put('I', serial)
    if raw_fields is not None:
        w.put('I', len(raw_fields))
        w.buf += raw_fields
    else:
        w.value('a(yv)', fl)
    w.pad(8)
    return bytes(w.buf + bw.buf)


def call(**kw):
    fields = [(1, ObjPath('/org/example/Object')), (2, 'org.example.Iface'),
              (3, 'Method'), (6, 'org.example.Service')]
    fields += kw.pop('extra', [])
    return message(1, kw.pop('fields', fields), **kw)


VALID = {}
INVALID = {}


def both(name, fn):
    VALID[name + '-le'] = fn('l')
    VALID[name + '-be'] = fn('B')


def valid_shapes():
    both('call-empty', lambda e: call(endian=e))
    both('call-noiface', lambda e: message(1, [(1, ObjPath('/')), (3, 'Ping')], endian=e))
    both('call-s', lambda e: call(sig='s', body=['hello'], endian=e))
    both('call-su', lambda e: call(sig='su', body=['org.example.Name', 4], endian=e))
    both('call-all-basic', lambda e: call(
        sig='ybnqiuxtdsog', body=[255, 1, -2, 65535, -3, 4, -5, 2**64 - 1, 1.5,
                                  'str', ObjPath('/a/b_1'), Sig('a{sv}')], endian=e))
    both('call-utf8', lambda e: call(sig='s', body=['h\u00e9llo \u4e16\u754c \U0001f600 \ufdd0\uffff'], endian=e))
    both('call-ay', lambda e: call(sig='ay', body=[list(range(17))], endian=e))
    both('call-ab', lambda e: call(sig='ab', body=[[1, 0, 1]], endian=e))
    both('call-ad-empty', lambda e: call(sig='yad', body=[1, []], endian=e))
    both('call-ax', lambda e: call(sig='yax', body=[1, [1, -1]], endian=e))
    both('call-as', lambda e: call(sig='as', body=[['a', '', 'ccc']], endian=e))
    both('call-struct', lambda e: call(sig='(iis)y(y(ty))', body=[(1, 2, 's'), 9, (1, (2, 3))], endian=e))
    both('call-asv', lambda e: call(sig='a{sv}', body=[[
        ('Name', ('s', 'x')), ('Count', ('u', 3)), ('Flag', ('b', 1)),
        ('Nested', ('v', ('v', ('i', 5)))), ('Path', ('o', ObjPath('/p'))),
        ('List', ('as', ['a', 'b'])), ('Big', ('t', 1 << 40))]], endian=e))
    both('call-managed', lambda e: call(sig='a{oa{sa{sv}}}', body=[[
        (ObjPath('/org/example/1'), [('org.example.A', [('P', ('u', 1))]),
                                     ('org.example.B', [])]),
        (ObjPath('/org/example/2'), [])]], endian=e))
    both('call-empty-struct-array', lambda e: call(sig='ya(tt)', body=[1, []], endian=e))
    both('call-dict-int-key', lambda e: call(sig='a{ias}', body=[[(1, ['x']), (2, [])]], endian=e))
    both('call-variant-struct', lambda e: call(sig='v', body=[('(sav)', ('s', [('y', 1), ('d', 2.0)]))], endian=e))
    both('call-flags', lambda e: call(flags=0x7, endian=e))
    both('call-unknown-flag', lambda e: call(flags=0x80, endian=e))
    both('call-unknown-field', lambda e: call(extra=[(42, 'a{sv}', [('k', ('s', 'v'))])], endian=e))
    both('call-sender', lambda e: call(extra=[(7, ':1.42')], endian=e))
    both('call-unique-dest', lambda e: message(1, [(1, ObjPath('/')), (3, 'M'), (6, ':1.7')], endian=e))
    both('signal', lambda e: message(4, [(1, ObjPath('/org/freedesktop/DBus')), (2, 'org.freedesktop.DBus'),
                                         (3, 'NameOwnerChanged')], sig='sss',
                                     body=['org.example', '', ':1.5'], endian=e))
    both('return', lambda e: message(2, [(5, 7), (6, ':1.9')], sig='u', body=[1], endian=e))
    both('return-empty', lambda e: message(2, [(5, 1)], endian=e))
    both('error', lambda e: message(3, [(4, 'org.freedesktop.DBus.Error.Failed'), (5, 3)],
                                    sig='s', body=['it failed'], endian=e))
    both('deep-arrays', lambda e: call(sig='a' * 32 + 'y', body=[[]], endian=e))
    both('deep-structs', lambda e: call(sig='(' * 32 + 'y' + ')' * 32, body=[nest_struct(32)], endian=e))
    both('deep-variants', lambda e: call(sig='v', body=[nest_variant(63)], endian=e))
    # The deepest a reader ever goes: 64 variants, then an empty array of arrays.
    both('deep-variants-empty-array', lambda e: call(sig='v', body=[nest_variant(64, ('aas', []))], endian=e))
    both('type-5', lambda e: patch(call(sig='su', body=['hi', 1], endian=e), 1, b'\5'))
    both('type-200-no-fields', lambda e: message(200, [], endian=e))
    both('type-255-body', lambda e: message(255, [(6, ':1.7')], sig='as', body=[['x']], endian=e))
    both('serial-max', lambda e: call(serial=0xffffffff, endian=e))
    both('long-string', lambda e: call(sig='s', body=['x' * 5000], endian=e))


def nest_struct(n):
    v = 1
    for _ in range(n):
        v = (v,)
    return v


def nest_variant(n, inner=('y', 1)):
    v = inner
    for _ in range(n - 1):
        v = ('v', v)
    return v


def patch(data, offset, new):
    b = bytearray(data)
    b[offset:offset + len(new)] = new
    return bytes(b)


def invalid_shapes():
    good = call(sig='su', body=['hi', 1])
    INVALID['bad-endian'] = patch(good, 0, b'x')
    INVALID['bad-version'] = patch(good, 3, b'\2')
    INVALID['type-0'] = patch(good, 1, b'\0')
    # Unknown types parse (the spec: ignore them), but only if well-formed.
    INVALID['type-5-bad-path'] = message(5, [(1, ObjPath('/a//b'))])
    INVALID['type-200-short-body'] = patch(message(200, [], sig='s', body=['abc']), 4, struct.pack('<I', 100))
    INVALID['serial-0'] = call(serial=0)
    INVALID['truncated'] = good[:-1]
    INVALID['trailing-byte'] = good + b'\0'
    INVALID['short-header'] = good[:12]
    INVALID['body-len-mismatch'] = patch(good, 4, struct.pack('<I', 100))
    INVALID['fields-len-huge'] = patch(good, 12, struct.pack('<I', 0x7fffffff))
    INVALID['call-no-path'] = message(1, [(3, 'M')])
    INVALID['call-no-member'] = message(1, [(1, ObjPath('/'))])
    INVALID['signal-no-iface'] = message(4, [(1, ObjPath('/')), (3, 'M')])
    INVALID['error-no-reply-serial'] = message(3, [(4, 'a.b')])
    INVALID['error-no-name'] = message(3, [(5, 1)])
    INVALID['return-no-reply-serial'] = message(2, [])
    INVALID['reply-serial-0'] = message(2, [(5, 0)])
    INVALID['field-code-0'] = call(extra=[(0, 'y', 1)])
    INVALID['field-dup'] = call(extra=[(3, 'Other')])
    INVALID['field-wrong-type'] = message(1, [(1, 's', '/'), (3, 'M')])
    INVALID['field-struct-type'] = message(1, [(1, ObjPath('/')), (3, 'M'), (6, '(s)', ('a.b',))])
    INVALID['bad-path'] = message(1, [(1, ObjPath('/a//b')), (3, 'M')])
    INVALID['path-trailing-slash'] = message(1, [(1, ObjPath('/a/')), (3, 'M')])
    INVALID['bad-member'] = message(1, [(1, ObjPath('/')), (3, '1M')])
    INVALID['member-dot'] = message(1, [(1, ObjPath('/')), (3, 'a.b')])
    INVALID['bad-iface'] = message(1, [(1, ObjPath('/')), (2, 'noDots'), (3, 'M')])
    INVALID['bad-dest'] = message(1, [(1, ObjPath('/')), (3, 'M'), (6, 'org..x')])
    INVALID['bad-sender'] = message(1, [(1, ObjPath('/')), (3, 'M'), (7, '1.x')])
    INVALID['sender-unique-no-dot'] = message(1, [(1, ObjPath('/')), (3, 'M'), (7, ':1-7')])
    INVALID['dest-unique-empty'] = message(1, [(1, ObjPath('/')), (3, 'M'), (6, ':')])
    INVALID['bad-error-name'] = message(3, [(4, 'x'), (5, 1)])
    INVALID['local-path'] = message(1, [(1, ObjPath('/org/freedesktop/DBus/Local')), (3, 'M')])
    INVALID['local-iface'] = message(4, [(1, ObjPath('/')), (2, 'org.freedesktop.DBus.Local'), (3, 'M')])
    INVALID['bad-signature-field'] = message(1, [(1, ObjPath('/')), (3, 'M'), (8, 'g', Sig('a'))])
    INVALID['body-without-signature'] = body_without_signature()
    INVALID['body-bool-2'] = call(sig='b', body=[2])
    INVALID['body-ab-2'] = call(sig='ab', body=[[0, 2]])
    INVALID['body-bad-utf8'] = call(sig='s', body=[b'\xff\xfe'])
    INVALID['body-overlong-utf8'] = call(sig='s', body=[b'\xc0\xaf'])
    INVALID['body-surrogate'] = call(sig='s', body=[b'\xed\xa0\x80'])
    INVALID['body-above-10ffff'] = call(sig='s', body=[b'\xf4\x90\x80\x80'])
    INVALID['body-nul-in-string'] = call(sig='s', body=[b'a\0b'])
    INVALID['body-bad-objpath'] = call(sig='o', body=[ObjPath('no-slash')])
    INVALID['body-bad-sig'] = call(sig='g', body=[Sig('(')])
    INVALID['body-variant-two-types'] = body_variant_two_types()
    INVALID['body-variant-empty-sig'] = body_variant_empty()
    INVALID['deep-variants-65'] = call(sig='v', body=[nest_variant(65)])
    INVALID['deep-variants-array-65'] = call(sig='v', body=[nest_variant(64, ('as', ['x']))])
    INVALID['sig-33-arrays'] = call(sig='a' * 33 + 'y', body=[[]])
    INVALID['sig-33-nested-arrays'] = call(sig='a(' * 32 + 'ay' + ')' * 32, body=[[]])
    INVALID['sig-33-structs'] = call(sig='(' * 33 + 'y' + ')' * 33, body=[nest_struct(33)])
    INVALID['sig-dict-outside-array'] = call(sig='{sv}', body=[('a', ('y', 1))])
    INVALID['sig-empty-struct'] = call(sig='()', body=[()])
    INVALID['sig-dict-variant-key'] = call(sig='a{vs}', body=[[]])
    INVALID['sig-unknown-code'] = call(sig='w', body=[])
    INVALID['unix-fds-without-fds'] = call(extra=[(9, 1)])
    INVALID['body-h-without-fds'] = call(sig='h', body=[0])
    INVALID['array-len-short'] = body_array_len_wrong()
    INVALID['array-fixed-misaligned-len'] = body_ai_bad_len()
    INVALID['header-padding-nonzero'] = header_padding_nonzero()
    INVALID['body-padding-nonzero'] = body_padding_nonzero()
    INVALID['string-no-nul'] = string_no_nul()
    INVALID['array-over-64mib'] = array_over_max()


def replace_body(msg, old_len, body):
    out = bytearray(msg[:len(msg) - old_len]) + body
    struct.pack_into('<I', out, 4, len(body))
    return bytes(out)


def body_variant_two_types():
    # A variant whose signature "yy" holds two types.
    return replace_body(call(sig='v', body=[('y', 1)]), 4, b'\x02yy\x00\x01\x01')


def body_variant_empty():
    return replace_body(call(sig='v', body=[('y', 1)]), 4, b'\x00\x00')


def body_without_signature():
    return replace_body(message(1, [(1, ObjPath('/')), (3, 'M')]), 0, b'\x01' * 8)


def body_array_len_wrong():
    m = bytearray(call(sig='ayy', body=[[1, 2, 3], 9]))
    # body starts 8-aligned at the end minus 8 bytes (len 4 + 3 bytes + 1 byte)
    off = len(m) - 8
    struct.pack_into('<I', m, off, 4)   # claims the trailing 'y' too
    return bytes(m)


def body_ai_bad_len():
    m = bytearray(call(sig='ai', body=[[1, 2]]))
    off = len(m) - 12
    struct.pack_into('<I', m, off, 7)
    return bytes(m)


def header_padding_nonzero():
    m = bytearray(call())
    # fields end before the 8-aligned body offset: find the last padding byte
    fields_len = struct.unpack_from('<I', m, 12)[0]
    end = 16 + fields_len
    assert end % 8 != 0, 'need padding'
    m[end] = 1
    return bytes(m)


def body_padding_nonzero():
    m = bytearray(call(sig='yu', body=[1, 2]))
    off = len(m) - 8
    m[off + 1] = 0x55
    return bytes(m)


def string_no_nul():
    m = bytearray(call(sig='sy', body=['abc', 1]))
    off = len(m) - 9          # len(4) + 'abc\0' + 'y'
    m[off + 7] = ord('d')      # the NUL
    return bytes(m)


def array_over_max():
    m = bytearray(call(sig='ay', body=[[1]]))
    off = len(m) - 5
    struct.pack_into('<I', m, off, 64 * 1024 * 1024 + 1)
    return bytes(m)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    valid_shapes()
    invalid_shapes()
    for name, data in list(VALID.items()):
        open(os.path.join(out, 'valid-' + name), 'wb').write(data)
    for name, data in INVALID.items():
        open(os.path.join(out, 'invalid-' + name), 'wb').write(data)


if __name__ == '__main__':
    main()
