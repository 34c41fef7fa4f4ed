"""busconfig file handling as dbus-daemon does it: <include>,
<includedir> (files in order, last one wins), ignore_missing,
and the elements real system.conf files carry, which must be accepted."""
import os

import busfixture
from rawdbus import check_reply, ERROR
from busfixture import config

LIMITS_EXCEEDED = 'org.freedesktop.DBus.Error.LimitsExceeded'


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'w') as f:
        f.write('<busconfig>%s</busconfig>\n' % text)


def match_limit_seen(bus):
    """How many match rules a connection may add (up to 6)."""
    a = bus.raw()
    for i in range(6):
        reply = a.bus_call('AddMatch', 's', ["member='M%d'" % i])
        if reply.type == ERROR:
            assert reply.error_name == LIMITS_EXCEEDED, reply
            return i
    return 6


def restart_with(bus, extra_config, files):
    """A second bus in bus's directory layout with extra files; returns it
    started (the caller stops it)."""
    other = busfixture.Bus(bus.options, extra_config=extra_config.replace(
        '{dir}', '%(dir)s'))
    other.extra_config = other.extra_config % {'dir': other.dir}
    for name, text in files.items():
        write(os.path.join(other.dir, name), text)
    return other


def run_other(bus, extra_config, files, check):
    other = restart_with(bus, extra_config, files)
    try:
        other.start()
        check(other)
    finally:
        other.stop()
        other.cleanup()


def test_include_file(bus):
    def check(b):
        assert match_limit_seen(b) == 2, 'the limit from <include> unused'
    run_other(bus, '<include>{dir}/extra.conf</include>', {
        'extra.conf': '<limit name="max_match_rules_per_connection">2'
                      '</limit>'}, check)


def test_includedir_order(bus):
    def check(b):
        assert match_limit_seen(b) == 3, 'the last file in order wins'
    run_other(bus, '<includedir>{dir}/bus.d</includedir>', {
        'bus.d/10-first.conf':
            '<limit name="max_match_rules_per_connection">5</limit>',
        'bus.d/20-second.conf':
            '<limit name="max_match_rules_per_connection">3</limit>',
        'bus.d/30-ignored.txt':
            '<limit name="max_match_rules_per_connection">1</limit>'},
        check)


def test_include_relative_path(bus):
    # A relative <include> is relative to the including file.
    def check(b):
        assert match_limit_seen(b) == 4
    run_other(bus, '<include>sub/rel.conf</include>', {
        'sub/rel.conf':
            '<limit name="max_match_rules_per_connection">4</limit>'},
        check)


def test_include_missing_ignored(bus):
    run_other(bus, '<include ignore_missing="yes">{dir}/absent.conf'
              '</include><includedir>{dir}/absent.d</includedir>', {},
              lambda b: check_reply(b.raw().bus_call('GetId')))


def test_include_missing_fails(bus):
    other = restart_with(bus, '<include>{dir}/absent.conf</include>', {})
    try:
        other.start()
    except AssertionError:
        assert other.proc.wait(5) != 0
        return
    finally:
        other.stop(check=False)
        other.cleanup()
    raise AssertionError('started although an <include> is missing')


@config(extra_config='<keep_umask/>\n<syslog/>\n'
        '<standard_system_servicedirs/>\n'
        '<apparmor mode="disabled"/>\n'
        '<selinux><associate own="org.mssf.X" context="a_t"/></selinux>\n'
        '<include if_selinux_enabled="yes" selinux_root_relative="yes">'
        'contexts/dbus_contexts</include>\n'
        '<allow_anonymous/>\n')
def test_system_conf_elements_accepted(bus):
    a = bus.raw()
    assert a.unique_name in check_reply(a.bus_call('ListNames')).body[0]


def test_own_limit_names_in_includedir(bus):
    # mssf-broker's per-label limits, in a file of their own in an
    # <includedir> as mssf-broker(8) says to set them: mssf-broker reads
    # them, dbus-daemon skips that one file (it knows no such limit) and
    # both load the rest of the directory.
    def check(b):
        assert match_limit_seen(b) == 3, 'the rest of the directory unused'
    run_other(bus, '<includedir>{dir}/bus.d</includedir>', {
        'bus.d/10-labels.conf':
            '<limit name="max_connections_per_label">8</limit>'
            '<limit name="max_names_per_label">16</limit>',
        'bus.d/20-rules.conf':
            '<limit name="max_match_rules_per_connection">3</limit>'},
        check)
