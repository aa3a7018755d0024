#!/bin/sh
# Removes localsign from a Mac: `sudo installers/macos/uninstall.sh [--purge]`. The data in
# /Library/Application Support/localsign stays unless --purge (as on the other systems).
set -e
/usr/local/lib/localsign/localsign service uninstall ${1:+"$1"}
rm -rf /usr/local/lib/localsign /usr/local/bin/localsign
pkgutil --forget com.localsign.pkg >/dev/null 2>&1 || true
