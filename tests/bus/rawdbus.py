"""A raw-socket D-Bus client: SASL by hand, messages marshalled by hand.

The bus tests use it where a library would hide what the daemon does:
unexpected replies, spoofed header fields, truncated or garbage input,
fd negotiation, exact SASL lines. It is synchronous; every wait has a
timeout, so a test that uses it cannot hang.

Values: basic types map to Python ints/str/bytes/bool/float; a variant is
a (signature, value) pair; a struct is a tuple; a dict is a dict; an
array is a list ('ay' also accepts bytes). 'h' is an index into the
message's fd list.
"""
import array
import os
import select
import socket
import struct
import time

METHOD_CALL, METHOD_RETURN, ERROR, SIGNAL = 1, 2, 3, 4
NO_REPLY_EXPECTED, NO_AUTO_START, ALLOW_INTERACTIVE = 1, 2, 4

FIELD_PATH, FIELD_INTERFACE, FIELD_MEMBER, FIELD_ERROR_NAME = 1, 2, 3, 4
FIELD_REPLY_SERIAL, FIELD_DESTINATION, FIELD_SENDER = 5, 6, 7
FIELD_SIGNATURE, FIELD_UNIX_FDS = 8, 9
FIELD_SIGS = {1: 'o', 2: 's', 3: 's', 4: 's', 5: 'u', 6: 's', 7: 's',
              8: 'g', 9: 'u'}

_FIXED = {'y': ('B', 1), 'b': ('I', 4), 'n': ('h', 2), 'q': ('H', 2),
          'i': ('i', 4), 'u': ('I', 4), 'x': ('q', 8), 't': ('Q', 8),
          'd': ('d', 8), 'h': ('I', 4)}
_ALIGN = dict((k, v[1]) for k, v in _FIXED.items())
_ALIGN.update({'s': 4, 'o': 4, 'g': 1, 'a': 4, '(': 8, '{': 8, 'v': 1})


def split_signature(sig):
    """Splits a signature into its complete types."""
    out, i = [], 0
    while i < len(sig):
        j = _type_end(sig, i)
        out.append(sig[i:j])
        i = j
    return out


def _type_end(sig, i):
    c = sig[i]
    if c == 'a':
        return _type_end(sig, i + 1)
    if c in '({':
        close = ')' if c == '(' else '}'
        i += 1
        while sig[i] != close:
            i = _type_end(sig, i)
        return i + 1
    return i + 1


class Marshaller:
    def __init__(self, endian='<'):
        self.buf = bytearray()
        self.endian = endian

    def pad(self, n):
        while len(self.buf) % n:
            self.buf.append(0)

    def put(self, sig, value):
        c = sig[0]
        if c in _FIXED:
            fmt, size = _FIXED[c]
            self.pad(size)
            if c == 'b':
                value = 1 if value else 0
            self.buf += struct.pack(self.endian + fmt, value)
        elif c in 'so':
            data = value.encode() if isinstance(value, str) else value
            self.pad(4)
            self.buf += struct.pack(self.endian + 'I', len(data))
            self.buf += data + b'\0'
        elif c == 'g':
            data = value.encode()
            self.buf += struct.pack('<B', len(data)) + data + b'\0'
        elif c == 'v':
            inner_sig, inner = value
            self.put('g', inner_sig)
            self.put(inner_sig, inner)
        elif c == '(':
            self.pad(8)
            for s, v in zip(split_signature(sig[1:-1]), value):
                self.put(s, v)
        elif c == 'a':
            elem = sig[1:]
            self.pad(4)
            len_pos = len(self.buf)
            self.buf += b'\0\0\0\0'
            self.pad(_ALIGN[elem[0]])
            start = len(self.buf)
            if elem[0] == '{':
                key_sig, val_sig = split_signature(elem[1:-1])
                for k, v in value.items():
                    self.pad(8)
                    self.put(key_sig, k)
                    self.put(val_sig, v)
            elif elem == 'y' and isinstance(value, (bytes, bytearray)):
                self.buf += value
            else:
                for v in value:
                    self.put(elem, v)
            struct.pack_into(self.endian + 'I', self.buf, len_pos,
                             len(self.buf) - start)
        else:
            raise ValueError('cannot marshal %r' % sig)


class Unmarshaller:
    def __init__(self, data, offset=0, endian='<'):
        self.data = data
        self.pos = offset
        self.endian = endian

    def align(self, n):
        self.pos = (self.pos + n - 1) // n * n

    def get(self, sig):
        c = sig[0]
        if c in _FIXED:
            fmt, size = _FIXED[c]
            self.align(size)
            (v,) = struct.unpack_from(self.endian + fmt, self.data, self.pos)
            self.pos += size
            return bool(v) if c == 'b' else v
        if c in 'so':
            self.align(4)
            (n,) = struct.unpack_from(self.endian + 'I', self.data, self.pos)
            s = bytes(self.data[self.pos + 4:self.pos + 4 + n]).decode()
            self.pos += 4 + n + 1
            return s
        if c == 'g':
            n = self.data[self.pos]
            s = bytes(self.data[self.pos + 1:self.pos + 1 + n]).decode()
            self.pos += 1 + n + 1
            return s
        if c == 'v':
            inner_sig = self.get('g')
            return (inner_sig, self.get(inner_sig))
        if c == '(':
            self.align(8)
            return tuple(self.get(s) for s in split_signature(sig[1:-1]))
        if c == 'a':
            elem = sig[1:]
            self.align(4)
            (n,) = struct.unpack_from(self.endian + 'I', self.data, self.pos)
            self.pos += 4
            self.align(_ALIGN[elem[0]])
            end = self.pos + n
            if elem[0] == '{':
                key_sig, val_sig = split_signature(elem[1:-1])
                out = {}
                while self.pos < end:
                    self.align(8)
                    k = self.get(key_sig)
                    out[k] = self.get(val_sig)
                return out
            if elem == 'y':
                self.pos = end
                return bytes(self.data[end - n:end])
            out = []
            while self.pos < end:
                out.append(self.get(elem))
            return out
        raise ValueError('cannot unmarshal %r' % sig)


class Message:
    def __init__(self, type, serial=0, flags=0, fields=None, signature='',
                 body=(), fds=()):
        self.type = type
        self.serial = serial
        self.flags = flags
        self.fields = dict(fields or {})
        if signature:
            self.fields[FIELD_SIGNATURE] = signature
        self.body = list(body)
        self.fds = list(fds)

    path = property(lambda self: self.fields.get(FIELD_PATH))
    interface = property(lambda self: self.fields.get(FIELD_INTERFACE))
    member = property(lambda self: self.fields.get(FIELD_MEMBER))
    error_name = property(lambda self: self.fields.get(FIELD_ERROR_NAME))
    reply_serial = property(lambda self: self.fields.get(FIELD_REPLY_SERIAL))
    destination = property(lambda self: self.fields.get(FIELD_DESTINATION))
    sender = property(lambda self: self.fields.get(FIELD_SENDER))
    signature = property(lambda self: self.fields.get(FIELD_SIGNATURE, ''))

    def marshal(self, serial=None, big_endian=False):
        if serial is not None:
            self.serial = serial
        endian = '>' if big_endian else '<'
        body = Marshaller(endian)
        for s, v in zip(split_signature(self.signature), self.body):
            body.put(s, v)
        fields = dict(self.fields)
        if self.fds:
            fields[FIELD_UNIX_FDS] = len(self.fds)
        head = Marshaller(endian)
        head.buf += struct.pack(endian + 'cBBBII',
                                b'B' if big_endian else b'l', self.type,
                                self.flags, 1, len(body.buf), self.serial)
        sigs = dict(FIELD_SIGS)
        sigs.update(getattr(self, 'field_sigs', {}))
        head.put('a(yv)', [(code, (sigs[code], value))
                           for code, value in sorted(fields.items())])
        head.pad(8)
        return bytes(head.buf + body.buf)

    def __repr__(self):
        names = {1: 'call', 2: 'return', 3: 'error', 4: 'signal'}
        return '<%s serial=%d %s %r>' % (
            names.get(self.type, self.type), self.serial,
            dict((k, v) for k, v in self.fields.items()), self.body)


def message_length(data):
    """Total length of the message at the start of data, or None."""
    if len(data) < 16:
        return None
    endian = '>' if data[0:1] == b'B' else '<'
    body_len, _, fields_len = struct.unpack_from(endian + 'III', data, 4)
    head = 16 + fields_len
    head = (head + 7) // 8 * 8
    return head + body_len


def parse_message(data, fds=()):
    endian = '>' if data[0:1] == b'B' else '<'
    byte, type, flags, version, body_len, serial = struct.unpack_from(
        endian + 'cBBBII', data, 0)
    if byte not in (b'l', b'B'):
        raise ValueError('bad endianness byte %r' % byte)
    u = Unmarshaller(data, 12, endian)
    fields = dict((code, value[1]) for code, value in u.get('a(yv)'))
    u.align(8)
    msg = Message(type, serial, flags, fields)
    msg.big_endian = endian == '>'
    msg.body = [u.get(s) for s in split_signature(msg.signature)]
    msg.fds = list(fds)
    return msg


def parse_address(address):
    """The socket address of the first unix: entry of a D-Bus address."""
    for entry in address.split(';'):
        transport, _, params = entry.partition(':')
        if transport != 'unix':
            continue
        kv = dict(p.split('=', 1) for p in params.split(',') if '=' in p)
        kv = dict((k, _unescape(v)) for k, v in kv.items())
        if 'path' in kv:
            return kv['path']
        if 'abstract' in kv:
            return '\0' + kv['abstract']
    raise ValueError('no unix address in %r' % address)


def _unescape(value):
    out, i = bytearray(), 0
    while i < len(value):
        if value[i] == '%':
            out.append(int(value[i + 1:i + 3], 16))
            i += 3
        else:
            out += value[i].encode()
            i += 1
    return out.decode()


class Disconnected(Exception):
    pass


class RawConnection:
    """One socket to the bus. Nothing is sent unless a method says so."""

    def __init__(self, address, timeout=5.0, sock=None):
        """sock: a socket connected already (address is then unused)."""
        if sock is None:
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            sock.settimeout(timeout)
            sock.connect(parse_address(address))
        self.sock = sock
        self.sock.settimeout(timeout)
        self.timeout = timeout
        self.inbuf = bytearray()
        self.infds = []
        self.queue = []
        self.serial = 0
        self.unique_name = None
        self.closed = False

    # --- SASL -----------------------------------------------------------
    def send_raw(self, data, fds=()):
        if fds:
            anc = [(socket.SOL_SOCKET, socket.SCM_RIGHTS,
                    array.array('i', fds).tobytes())]
            sent = self.sock.sendmsg([data], anc)
            data = data[sent:]
        if data:
            self.sock.sendall(data)

    def sasl_line(self, line, timeout=None):
        """Sends one SASL line, returns the server's answer line."""
        self.send_raw(line.encode() + b'\r\n')
        return self.read_line(timeout)

    def read_line(self, timeout=None):
        deadline = time.monotonic() + (timeout or self.timeout)
        while b'\r\n' not in self.inbuf:
            if not self._fill(deadline):
                raise Disconnected('disconnected during SASL, got %r'
                                   % bytes(self.inbuf))
        line, _, rest = bytes(self.inbuf).partition(b'\r\n')
        self.inbuf = bytearray(rest)
        return line.decode()

    def authenticate(self, unix_fd=False, uid=None):
        self.send_raw(b'\0')
        if uid is None:
            uid = os.getuid()
        reply = self.sasl_line('AUTH EXTERNAL ' + str(uid).encode().hex())
        if not reply.startswith('OK '):
            raise Disconnected('authentication failed: %r' % reply)
        self.guid = reply[3:]
        if unix_fd:
            reply = self.sasl_line('NEGOTIATE_UNIX_FD')
            if reply != 'AGREE_UNIX_FD':
                raise Disconnected('fd passing refused: %r' % reply)
        self.send_raw(b'BEGIN\r\n')

    def connect(self, unix_fd=False):
        """SASL, then Hello; returns the unique name."""
        self.authenticate(unix_fd)
        reply = self.call('org.freedesktop.DBus', '/org/freedesktop/DBus',
                          'org.freedesktop.DBus', 'Hello')
        check_reply(reply)
        self.unique_name = reply.body[0]
        return self.unique_name

    # --- messages -------------------------------------------------------
    def next_serial(self):
        self.serial += 1
        return self.serial

    def send(self, msg, big_endian=False):
        if not msg.serial:
            msg.serial = self.next_serial()
        self.send_raw(msg.marshal(big_endian=big_endian), msg.fds)
        return msg.serial

    def send_call(self, dest, path, iface, member, signature='', body=(),
                  flags=0, fds=(), big_endian=False):
        fields = {FIELD_PATH: path, FIELD_MEMBER: member}
        if dest is not None:
            fields[FIELD_DESTINATION] = dest
        if iface is not None:
            fields[FIELD_INTERFACE] = iface
        return self.send(Message(METHOD_CALL, 0, flags, fields, signature,
                                 body, fds), big_endian)

    def call(self, dest, path, iface, member, signature='', body=(),
             flags=0, fds=(), timeout=None):
        """A method call; returns the reply (return or error) message."""
        serial = self.send_call(dest, path, iface, member, signature, body,
                                flags, fds)
        return self.wait_for(lambda m: m.type in (METHOD_RETURN, ERROR)
                             and m.reply_serial == serial, timeout)

    def bus_call(self, member, signature='', body=(), timeout=None,
                 iface='org.freedesktop.DBus'):
        return self.call('org.freedesktop.DBus', '/org/freedesktop/DBus',
                         iface, member, signature, body, timeout=timeout)

    def signal(self, path, iface, member, signature='', body=(), dest=None,
               fields=None):
        f = {FIELD_PATH: path, FIELD_INTERFACE: iface, FIELD_MEMBER: member}
        if dest is not None:
            f[FIELD_DESTINATION] = dest
        f.update(fields or {})
        return self.send(Message(SIGNAL, 0, 0, f, signature, body))

    def reply(self, call, signature='', body=(), fds=()):
        return self.send(Message(METHOD_RETURN, 0, NO_REPLY_EXPECTED, {
            FIELD_REPLY_SERIAL: call.serial,
            FIELD_DESTINATION: call.sender}, signature, body, fds))

    def error(self, call, name, text=None):
        return self.send(Message(ERROR, 0, NO_REPLY_EXPECTED, {
            FIELD_REPLY_SERIAL: call.serial, FIELD_DESTINATION: call.sender,
            FIELD_ERROR_NAME: name}, 's' if text is not None else '',
            [text] if text is not None else []))

    def add_match(self, rule):
        check_reply(self.bus_call('AddMatch', 's', [rule]))

    def _fill(self, deadline):
        """Reads once from the socket; False on EOF/timeout."""
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return False
        ready, _, _ = select.select([self.sock], [], [], remaining)
        if not ready:
            return False
        try:
            data, anc, _, _ = self.sock.recvmsg(
                65536, socket.CMSG_SPACE(64 * 4))
        except (ConnectionResetError, BrokenPipeError):
            data, anc = b'', []
        for level, type, payload in anc:
            if level == socket.SOL_SOCKET and type == socket.SCM_RIGHTS:
                fds = array.array('i')
                fds.frombytes(payload[:len(payload) // 4 * 4])
                self.infds.extend(fds)
        if not data:
            self.closed = True
            raise Disconnected('the bus closed the connection')
        self.inbuf += data
        return True

    def _parse_buffered(self):
        while True:
            n = message_length(self.inbuf)
            if n is None or len(self.inbuf) < n:
                return
            data = bytes(self.inbuf[:n])
            del self.inbuf[:n]
            msg = parse_message(data)
            nfds = msg.fields.get(FIELD_UNIX_FDS, 0)
            msg.fds, self.infds = self.infds[:nfds], self.infds[nfds:]
            self.queue.append(msg)

    def wait_for(self, predicate, timeout=None):
        """The first queued or incoming message matching predicate (it is
        removed from the queue). Raises TimeoutError."""
        deadline = time.monotonic() + (self.timeout if timeout is None
                                       else timeout)
        while True:
            self._parse_buffered()
            for i, msg in enumerate(self.queue):
                if predicate(msg):
                    return self.queue.pop(i)
            if not self._fill(deadline):
                raise TimeoutError('no matching message; queued: %r'
                                   % self.queue)

    def collect(self, duration):
        """Every message that arrives within duration (plus the queue)."""
        deadline = time.monotonic() + duration
        try:
            while self._fill(deadline):
                pass
        except Disconnected:
            pass
        self._parse_buffered()
        out, self.queue = self.queue, []
        return out

    def expect_nothing(self, predicate, duration=0.3):
        got = [m for m in self.collect(duration) if predicate(m)]
        if got:
            raise AssertionError('unexpected messages: %r' % got)

    def wait_closed(self, timeout=None):
        """True once the bus has closed the socket within timeout."""
        deadline = time.monotonic() + (timeout or self.timeout)
        try:
            while self._fill(deadline):
                pass
        except Disconnected:
            return True
        return False

    def close(self):
        self.sock.close()
        for fd in self.infds:
            os.close(fd)
        self.infds = []


class DBusError(Exception):
    def __init__(self, msg):
        self.name = msg.error_name
        self.text = msg.body[0] if msg.body and isinstance(msg.body[0],
                                                           str) else ''
        Exception.__init__(self, '%s: %s' % (self.name, self.text))


def check_reply(msg):
    if msg.type == ERROR:
        raise DBusError(msg)
    return msg
