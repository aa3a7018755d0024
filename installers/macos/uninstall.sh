#!/bin/sh
# Removes localsign from a Mac, shipped by the .pkg as /usr/local/lib/localsign/uninstall:
#   sudo /usr/local/lib/localsign/uninstall           the data stays (as `dpkg -r`, `msiexec /x`)
#   sudo /usr/local/lib/localsign/uninstall --purge   also the data, the service file and the logs
# The data: /Library/Application Support/localsign (keys, credentials, results) and
# /etc/localsign/service.json (its port), which a reinstall finds again.
set -e
case ${1:-} in
  '' | --purge) ;;
  *) echo "usage: sudo /usr/local/lib/localsign/uninstall [--purge]" >&2; exit 2 ;;
esac
if [ "$(id -u)" != 0 ]; then
  echo "localsign: run it as root: sudo /usr/local/lib/localsign/uninstall $*" >&2
  exit 1
fi
# Boots the daemon out and deletes its plist; with --purge the data dir and the service file too.
/usr/local/lib/localsign/localsign service uninstall ${1:+"$1"}
if [ "${1:-}" = --purge ]; then
  rm -rf /Library/Logs/localsign
  rmdir /etc/localsign 2>/dev/null || true
fi
rm -f /usr/local/bin/localsign
rm -rf /usr/local/lib/localsign
pkgutil --forget com.localsign.pkg >/dev/null 2>&1 || true
echo "localsign removed"
