"""<listen> addresses: unix:path, unix:tmpdir, unix:dir, unix:abstract,
and several at once. The printed address lists every one, each serves,
and the daemon removes its socket files when it exits (checked by the
fixture)."""

import rawdbus
from rawdbus import check_reply, METHOD_CALL
from busfixture import config


def entries(address):
    return [e for e in address.split(';') if e]


def connect(entry):
    conn = rawdbus.RawConnection(entry)
    conn.connect()
    return conn


def talk(a, b):
    serial = a.send_call(b.unique_name, '/p', 'org.mssf.I', 'M')
    b.reply(b.wait_for(lambda m: m.type == METHOD_CALL), 's', ['across'])
    assert a.wait_for(lambda m: m.reply_serial == serial).body == ['across']


def check_single(bus, transport):
    (entry,) = entries(bus.address)
    assert entry.startswith(transport), entry
    assert 'guid=' in entry, entry
    conn = connect(entry)
    talk(conn, bus.raw())
    conn.close()


@config(listen=['unix:tmpdir={dir}'])
def test_listen_tmpdir(bus):
    check_single(bus, 'unix:')
    path = rawdbus.parse_address(bus.address)
    assert path.startswith('\0') or path.startswith(bus.dir + '/'), path


@config(listen=['unix:dir={dir}'])
def test_listen_dir(bus):
    check_single(bus, 'unix:path=' + bus.dir + '/')


@config(listen=['unix:abstract={dir}/abstract'])
def test_listen_abstract(bus):
    check_single(bus, 'unix:abstract=' + bus.dir + '/abstract')


@config(listen=['unix:path={dir}/one', 'unix:path={dir}/two'])
def test_listen_two_addresses(bus):
    got = entries(bus.address)
    paths = sorted(rawdbus.parse_address(e) for e in got)
    assert paths == [bus.dir + '/one', bus.dir + '/two'], got
    one, two = [connect(e) for e in got]
    talk(one, two)
    talk(two, one)
    assert check_reply(one.bus_call('GetId')).body == \
        check_reply(two.bus_call('GetId')).body
