import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { NO_OUTSIDE_VECTORS, outsideVectors } from '../../helpers/outside-vectors';

const ROOT = resolve(__dirname, '../../..');
const DIR = join(ROOT, 'installers');
/** Apple's property list DTD, outside data (../shared/vectors/plist/README.md). */
const PLIST = outsideVectors('plist');

/**
 * The maintainer and pkg scripts parse with the shell that runs them (dpkg and macOS's installer
 * run /bin/sh; build-pkg.sh is bash). What they do is run by the .deb test here; the macOS ones
 * only on a Mac, which this machine is not.
 */
describe('installer scripts', () => {
  it.each([
    ['sh', 'debian/postinst'],
    ['sh', 'debian/prerm'],
    ['sh', 'debian/postrm'],
    ['sh', 'macos/scripts/preinstall'],
    ['sh', 'macos/scripts/postinstall'],
    ['sh', 'macos/uninstall.sh'],
    ['bash', 'macos/build-pkg.sh'],
  ])('%s -n %s', (shell, file) => {
    const r = spawnSync(shell, ['-n', join(DIR, file)], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
  });

  it.skipIf(!PLIST)(`the hardened-runtime entitlements are a valid plist${PLIST ? '' : ` (${NO_OUTSIDE_VECTORS})`}`, () => {
    const r = spawnSync('xmllint', ['--noout', '--nonet', '--dtdvalid', join(PLIST!, 'PropertyList-1.0.dtd'), join(DIR, 'macos/entitlements.plist')], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
  });
});
