#!/usr/bin/env bash
# Builds dist/installers/localsign-<version>.pkg ON A MAC (macOS 12+, Xcode command line tools,
# Node 22 of the pinned version in build/tools.mjs). Not run by CI: codesign, pkgbuild,
# productbuild, notarytool and stapler exist only on macOS.
#
#   installers/macos/build-pkg.sh                         ad-hoc signed, not notarized (testing)
#   LOCALSIGN_CODESIGN_ID="Developer ID Application: Example (TEAMID)" \
#   LOCALSIGN_INSTALLER_ID="Developer ID Installer: Example (TEAMID)" \
#   LOCALSIGN_NOTARY_PROFILE=localsign-notary \
#     installers/macos/build-pkg.sh                       signed, notarized, stapled (release)
#
# Why each step:
# - arm64 Macs run no unsigned code: the SEA (node + injected blob) must be re-signed after
#   postject, ad-hoc (`codesign --sign -`) at least. Injection invalidates node's own signature,
#   so it is removed first (Node's doc/api/single-executable-applications.md).
# - Gatekeeper accepts a downloaded pkg only when its binaries are signed with a Developer ID,
#   with the hardened runtime (--options runtime) and a secure timestamp, and the pkg is
#   notarized (notarytool) and the ticket stapled. The hardened runtime needs entitlements.plist:
#   V8's JIT (allow-jit, allow-unsigned-executable-memory) and loading a vendor's PKCS#11 module
#   and koffi's addon, signed by others (disable-library-validation).
set -euo pipefail
cd "$(dirname "$0")/../.."

[ "$(uname -s)" = Darwin ] || { echo "build-pkg.sh runs on macOS (codesign, pkgbuild, productbuild)" >&2; exit 1; }
PINNED=$(node -e 'import("./build/tools.mjs").then((m) => console.log(m.NODE_VERSION))')
[ "$(node --version)" = "v$PINNED" ] || { echo "use Node $PINNED (build/tools.mjs), not $(node --version): the blob must come from the runtime it is injected into" >&2; exit 1; }
ARCH=$(node -p process.arch) # arm64 or x64
VERSION=$(node -p 'require("./package.json").version')
SIGN_ID=${LOCALSIGN_CODESIGN_ID:--}
OUT=dist/installers
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

npm run build
node --experimental-sea-config sea-config.json
ROOT="$WORK/root"
LIB="$ROOT/usr/local/lib/localsign"
mkdir -p "$LIB/node_modules/@koromix" "$ROOT/usr/local/bin" "$OUT"
cp "$(command -v node)" "$LIB/localsign"
chmod 755 "$LIB/localsign"
codesign --remove-signature "$LIB/localsign"
npx postject "$LIB/localsign" NODE_SEA_BLOB dist/sea-prep.blob \
  --sentinel-fuse NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2 --macho-segment-name NODE_SEA
rm -f dist/sea-prep.blob
# The chip bridge beside the executable (src/chip/loader.ts): koffi and its prebuilt for this Mac.
rsync -a --exclude src --exclude vendor --exclude doc --exclude lib node_modules/koffi "$LIB/node_modules/"
npm pack "@koromix/koffi-darwin-$ARCH@$(node -p 'require("./node_modules/koffi/package.json").version')" --pack-destination "$WORK" --silent
mkdir -p "$LIB/node_modules/@koromix/koffi-darwin-$ARCH"
tar -xzf "$WORK"/koromix-koffi-darwin-*.tgz -C "$LIB/node_modules/@koromix/koffi-darwin-$ARCH" --strip-components=1
ln -s ../lib/localsign/localsign "$ROOT/usr/local/bin/localsign"

# Sign every Mach-O inside first, the executable last.
if [ "$SIGN_ID" = - ]; then
  find "$LIB/node_modules" -name '*.node' -exec codesign --force --sign - {} \;
  codesign --force --sign - "$LIB/localsign"
else
  find "$LIB/node_modules" -name '*.node' -exec codesign --force --timestamp --options runtime --sign "$SIGN_ID" {} \;
  codesign --force --timestamp --options runtime --entitlements installers/macos/entitlements.plist --sign "$SIGN_ID" "$LIB/localsign"
fi
codesign --verify --strict --verbose=2 "$LIB/localsign"
"$LIB/localsign" --version

COMPONENT="$WORK/localsign-component.pkg"
pkgbuild --root "$ROOT" --scripts installers/macos/scripts --identifier com.localsign.pkg \
  --version "$VERSION" --install-location / "$COMPONENT"
PKG="$OUT/localsign-$VERSION-$ARCH.pkg"
if [ -n "${LOCALSIGN_INSTALLER_ID:-}" ]; then
  productbuild --package "$COMPONENT" --sign "$LOCALSIGN_INSTALLER_ID" --timestamp "$PKG"
else
  productbuild --package "$COMPONENT" "$PKG"
fi
if [ -n "${LOCALSIGN_NOTARY_PROFILE:-}" ]; then
  # The profile: xcrun notarytool store-credentials localsign-notary --apple-id … --team-id …
  xcrun notarytool submit "$PKG" --keychain-profile "$LOCALSIGN_NOTARY_PROFILE" --wait
  xcrun stapler staple "$PKG"
  spctl --assess --type install --verbose "$PKG"
fi
echo "built $PKG"
