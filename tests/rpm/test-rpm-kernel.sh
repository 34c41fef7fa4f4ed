#!/bin/sh
# The kernel's half of the RPM side, under real Smack in tests/uml's
# user-mode-linux guest: the host builds and signs a service and an app
# (guest-rpm-kernel.sh says what the guest does with them).
#   test-rpm-kernel.sh UML_RUN MSSF_POLICY MSSF_SO MSSF_BROKER E2E_HELPER SMACK_HELPER
# Exit 0 pass, 1 fail, 77 skip.
set -u
here=$(cd "$(dirname "$0")" && pwd)
uml_run=$1
tool=$(readlink -f "$2")
plugin=$(readlink -f "$3")
broker=$(readlink -f "$4")
e2e=$(readlink -f "$5")
smack_helper=$(readlink -f "$6")

[ "$(id -u)" = 0 ] || { echo "SKIP: needs root"; exit 77; }
for t in rpm rpmbuild rpmsign gpg; do
    command -v "$t" >/dev/null || { echo "SKIP: $t is not installed (tools/install-deps)"; exit 77; }
done
# Under /tmp: uml-run keeps it visible in the guest.
work=$(mktemp -d /tmp/mssf-rpm-kernel.XXXXXX) || exit 1
trap 'gpg_stop; rm -rf "$work"' EXIT
. "$here/lib.sh"
. "$here/packages.sh"

rpm_setup
make_key system
# The service provides Radio and guards Guarded with it; the app holds it
# and is a copy of cat, so that running it prints the label it runs with.
svc=$(aegis rpm-ksvc <<'EOF'
<aegis>
  <request>
    <credential name="Cellular"/>
    <for path="/opt/rpm-kernel/bin/rpm-ksvc"/>
  </request>
  <provide>
    <credential name="Radio"/>
    <dbus name="org.mssf.test.RpmRadio" own="SELF" bus="system">
      <node name="/org/mssf/E2E">
        <interface name="org.mssf.E2E">
          <method name="Open"><annotation name="com.maemo.Aegis" value=""/></method>
          <method name="Guarded"><annotation name="com.maemo.Aegis" value="Radio"/></method>
        </interface>
      </node>
    </dbus>
  </provide>
</aegis>
EOF
)
pkg rpm-ksvc 1.0 "$svc" /opt/rpm-kernel/bin/rpm-ksvc
app=$(aegis rpm-kapp <<'EOF'
<aegis>
  <request>
    <credential name="rpm-ksvc::Radio"/>
    <for path="/opt/rpm-kernel/bin/rpm-kapp"/>
  </request>
</aegis>
EOF
)
cp /bin/cat "$work/src/cat"
x_install="install -D -m 755 $work/src/cat %{buildroot}/opt/rpm-kernel/bin/rpm-kapp" \
    x_files=/opt/rpm-kernel/bin/rpm-kapp pkg rpm-kapp 1.0 "$app"
sign system "$work"/rpms/*.rpm
gpg_stop
"$uml_run" --timeout 300 --mem 768M --keep "$work" "$here/guest-rpm-kernel.sh" "$here" "$work" \
    "$plugin" "$broker" "$e2e" "$smack_helper"
