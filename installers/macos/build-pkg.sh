#!/usr/bin/env bash
# The steps of a macOS release that only a Mac can take (macOS 12+, Xcode command line tools):
# the package itself is built on Linux by `npm run build:installers`
# (dist/installers/localsign-<version>.pkg: universal executable, ad-hoc signed; build/macos-pkg.mjs)
# and checked there by `npm run test:macos`. Here, on a Mac, it is:
#   1. expanded (pkgutil --expand-full),
#   2. its Mach-O files re-signed with a Developer ID Application identity, the hardened runtime and
#      a secure timestamp (codesign): koffi's addons first, the executable last, with
#      installers/macos/entitlements.plist (V8's JIT; koffi's addon and a vendor's PKCS#11 module
#      are signed by others: library validation off),
#   3. packed again by Apple's pkgbuild and productbuild, with the same payload, scripts,
#      identifier, version and Distribution, and signed with a Developer ID Installer identity
#      (productsign),
#   4. notarized (notarytool) and the ticket stapled (stapler), then assessed as Gatekeeper will (spctl).
#
#   LOCALSIGN_CODESIGN_ID="Developer ID Application: Example (TEAMID)" \
#   LOCALSIGN_INSTALLER_ID="Developer ID Installer: Example (TEAMID)" \
#   LOCALSIGN_NOTARY_PROFILE=localsign-notary \
#     installers/macos/build-pkg.sh [dist/installers/localsign-<version>.pkg]
#
# Writes dist/installers/localsign-<version>-signed.pkg. Without LOCALSIGN_NOTARY_PROFILE it stops
# after productsign (a signed package that Gatekeeper still refuses when downloaded). The profile:
# `xcrun notarytool store-credentials localsign-notary --apple-id … --team-id …`.
set -euo pipefail
cd "$(dirname "$0")/../.."

[ "$(uname -s)" = Darwin ] || { echo "build-pkg.sh runs on macOS (codesign, pkgbuild, productsign, notarytool); the package itself: npm run build:installers" >&2; exit 1; }
: "${LOCALSIGN_CODESIGN_ID:?set LOCALSIGN_CODESIGN_ID to a Developer ID Application identity (security find-identity -v -p codesigning)}"
: "${LOCALSIGN_INSTALLER_ID:?set LOCALSIGN_INSTALLER_ID to a Developer ID Installer identity}"
VERSION=$(node -p 'require("./package.json").version')
IN=${1:-dist/installers/localsign-$VERSION.pkg}
OUT=dist/installers/localsign-$VERSION-signed.pkg
[ -f "$IN" ] || { echo "$IN is missing: build it with npm run build:installers (on Linux or here)" >&2; exit 1; }
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

pkgutil --expand-full "$IN" "$WORK/x"
ROOT="$WORK/x/localsign.pkg/Payload"
LIB="$ROOT/usr/local/lib/localsign"

# 2. Inside out: the addons, then the executable (both slices of the universal binary).
find "$LIB/node_modules" -name '*.node' -print0 | while IFS= read -r -d '' addon; do
  codesign --force --timestamp --options runtime --sign "$LOCALSIGN_CODESIGN_ID" "$addon"
done
codesign --force --timestamp --options runtime --identifier com.localsign.localsign \
  --entitlements installers/macos/entitlements.plist --sign "$LOCALSIGN_CODESIGN_ID" "$LIB/localsign"
codesign --verify --strict --verbose=2 "$LIB/localsign"
"$LIB/localsign" --version

# 3. The same payload and scripts, packed by Apple's tools; root:wheel as the Linux build has them.
pkgbuild --root "$ROOT" --scripts "$WORK/x/localsign.pkg/Scripts" --identifier com.localsign.pkg \
  --version "$VERSION" --install-location / --ownership recommended "$WORK/localsign.pkg"
productbuild --distribution "$WORK/x/Distribution" --package-path "$WORK" "$WORK/unsigned.pkg"
productsign --sign "$LOCALSIGN_INSTALLER_ID" --timestamp "$WORK/unsigned.pkg" "$OUT"
pkgutil --check-signature "$OUT"

# 4. Notarization: Apple scans it and issues a ticket; stapled, Gatekeeper needs no network to see it.
if [ -n "${LOCALSIGN_NOTARY_PROFILE:-}" ]; then
  xcrun notarytool submit "$OUT" --keychain-profile "$LOCALSIGN_NOTARY_PROFILE" --wait
  xcrun stapler staple "$OUT"
  spctl --assess --type install --verbose "$OUT"
else
  echo "not notarized (no LOCALSIGN_NOTARY_PROFILE): Gatekeeper refuses it when downloaded" >&2
fi
echo "built $OUT"
