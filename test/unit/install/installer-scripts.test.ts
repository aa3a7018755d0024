import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(__dirname, '../../..');
const DIR = join(ROOT, 'installers');

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

  it('the hardened-runtime entitlements are a valid plist', () => {
    const r = spawnSync('xmllint', ['--noout', '--nonet', '--dtdvalid', join(ROOT, 'test/vectors/plist/PropertyList-1.0.dtd'), join(DIR, 'macos/entitlements.plist')], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
  });
});
