#!/usr/bin/python3
"""Writes N generated packages in three forms, for bench/policy/run-scale:

    gen-manifests.py N OUT_DIR

- OUT_DIR/manifests/pNNNNN.xml: an Aegis manifest. Each package is a service
  with 20 methods over 4 interfaces (5 each) on one object path under its
  own bus name, provides two tokens (A, B) that guard its methods, and
  requests three tokens of other packages for its binary.
- OUT_DIR/busconfig/pNNNNN.conf: the same service as dbus-daemon's policy
  language (own the name, one send_destination rule per method), so
  dbus-daemon can be timed parsing the same amount of policy.
- OUT_DIR/device-policy.conf: a device policy granting every origin
  everything, so every request resolves and is granted (no warnings).

Deterministic: the same N gives the same bytes.
"""
import os
import sys

MANIFEST_HEAD = """<aegis>
  <request>
{requests}
    <for path="/usr/bin/{name}"/>
  </request>
  <provide>
    <credential name="A"/>
    <credential name="B"/>
    <dbus name="org.example.{name}" own="SELF" bus="system">
      <node name="/org/example/{name}">
{interfaces}
      </node>
    </dbus>
  </provide>
</aegis>
"""
INTERFACE = """        <interface name="org.example.{name}.I{i}">
{methods}
        </interface>"""
METHOD = """          <method name="M{i}x{m}"><annotation name="com.maemo.Aegis" value="{token}"/></method>"""

BUSCONFIG_HEAD = """<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-BUS Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <policy user="root">
    <allow own="org.example.{name}"/>
  </policy>
  <policy context="default">
{rules}
  </policy>
</busconfig>
"""
BUSCONFIG_RULE = """    <allow send_destination="org.example.{name}" send_interface="org.example.{name}.I{i}" send_member="M{i}x{m}"/>"""


def name_of(n):
    return "p%05d" % n


def manifest(n, total):
    name = name_of(n)
    others = [(n + step) % total for step in (1, 7, 31)]
    requests = "\n".join('    <credential name="%s::%s"/>' % (name_of(o), "AB"[k % 2])
                         for k, o in enumerate(others) if o != n)
    interfaces = "\n".join(
        INTERFACE.format(name=name, i=i, methods="\n".join(
            METHOD.format(i=i, m=m, token="AB"[m % 2]) for m in range(5)))
        for i in range(4))
    return MANIFEST_HEAD.format(name=name, requests=requests, interfaces=interfaces)


def busconfig(n):
    name = name_of(n)
    rules = "\n".join(BUSCONFIG_RULE.format(name=name, i=i, m=m) for i in range(4) for m in range(5))
    return BUSCONFIG_HEAD.format(name=name, rules=rules)


def main():
    if len(sys.argv) != 3:
        sys.stderr.write("usage: gen-manifests.py N OUT_DIR\n")
        return 2
    total = int(sys.argv[1])
    out = sys.argv[2]
    for sub in ("manifests", "busconfig"):
        os.makedirs(os.path.join(out, sub), exist_ok=True)
    for n in range(total):
        with open(os.path.join(out, "manifests", name_of(n) + ".xml"), "w") as f:
            f.write(manifest(n, total))
        with open(os.path.join(out, "busconfig", name_of(n) + ".conf"), "w") as f:
            f.write(busconfig(n))
    with open(os.path.join(out, "device-policy.conf"), "w") as f:
        f.write("token Cellular\norigin * *\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
