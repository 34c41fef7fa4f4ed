#!/usr/bin/perl
# The debhelper sequence add-on "mssf" (Build-Depends: dh-sequence-mssf):
# runs dh_mssf before dh_installinit, so that a package's manifest is
# registered (its binaries labelled, its grants loaded) by its postinst
# before the service snippets of dh_installinit and dh_installsystemd
# start it, and unregistered by its prerm after they stop it.
use strict;
use warnings;
use Debian::Debhelper::Dh_Lib;

insert_before('dh_installinit', 'dh_mssf');

1;
