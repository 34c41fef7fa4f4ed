#!/usr/bin/python3
"""Writes N package manifests and the benchmark service's own into a
directory, and compiles them with mssf-policy into a policy file, so that
mssf-broker can be benchmarked with mediation on a realistic policy:

    bench/gen-policy.py MSSF_POLICY OUT_DIR [--packages 200]

Each generated package declares a bus name with several interfaces,
methods, signals and properties guarded by its own token; the benchmark
service org.mssf.Bench is declared too, with Echo open (value=""), so every
benchmark call is looked up and judged but allowed (the host has no Smack,
where any token requirement denies). Prints the policy file's path.
"""
import argparse
import os
import subprocess
import sys

PACKAGE = """<aegis>
  <request>
    <credential name="Cellular"/>
    <for path="/usr/bin/{name}"/>
  </request>
  <provide>
    <credential name="access"/>
    <dbus name="org.mssf.gen.{name}" own="SELF" bus="system">
      <node name="/org/mssf/gen/{name}">
{interfaces}
      </node>
    </dbus>
  </provide>
</aegis>
"""
INTERFACE = """        <interface name="org.mssf.gen.{name}.I{i}">
          <annotation name="com.maemo.Aegis" value=""/>
          <method name="Get{i}"/>
          <method name="Set{i}"><annotation name="com.maemo.Aegis" value="access"/></method>
          <method name="Reset{i}"><annotation name="com.maemo.Aegis" value="access"/></method>
          <signal name="Changed{i}"><annotation name="com.maemo.Aegis" value="access"/></signal>
          <property name="Value{i}" access="readwrite">
            <annotation name="com.maemo.Aegis" value="access"/>
          </property>
        </interface>"""
BENCH = """<aegis>
  <provide>
    <dbus name="org.mssf.Bench" own="SELF" bus="system">
      <node name="/org/mssf/Bench">
        <interface name="org.mssf.Bench">
          <method name="Echo"><annotation name="com.maemo.Aegis" value=""/></method>
        </interface>
      </node>
    </dbus>
  </provide>
</aegis>
"""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mssf_policy")
    ap.add_argument("out")
    ap.add_argument("--packages", type=int, default=200)
    args = ap.parse_args()
    manifests = os.path.join(args.out, "manifests")
    os.makedirs(manifests, exist_ok=True)
    for n in range(args.packages):
        name = "pkg%03d" % n
        interfaces = "\n".join(INTERFACE.format(name=name, i=i) for i in range(4))
        with open(os.path.join(manifests, name + ".xml"), "w") as f:
            f.write(PACKAGE.format(name=name, interfaces=interfaces))
    with open(os.path.join(manifests, "bench.xml"), "w") as f:
        f.write(BENCH)
    policy = os.path.join(args.out, "policy.db")
    # The generated packages request Cellular with no origin: each gets a
    # warning that it is not granted, which is expected here.
    done = subprocess.run([args.mssf_policy, "compile", "--manifest-dir", manifests, "--output", policy],
                          capture_output=True, text=True)
    if done.returncode != 0:
        sys.stderr.write(done.stderr)
        return 1
    print(policy)


if __name__ == "__main__":
    sys.exit(main())
