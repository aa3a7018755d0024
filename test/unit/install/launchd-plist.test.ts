import { spawnSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LAUNCHD_LABEL, renderLaunchdPlist } from '../../../src/install/launchd-plist';
import { NO_OUTSIDE_VECTORS, outsideVectors } from '../../helpers/outside-vectors';
import { tempDir } from '../../helpers/temp-dir';

/** Apple's property list DTD, outside data (../shared/vectors/plist/README.md says where it came from). */
const PLIST = outsideVectors('plist');
const DTD = join(PLIST ?? '', 'PropertyList-1.0.dtd');

/** plistutil's canonical XML (dict, array, string, integer, true, false) as a value. */
function plistValue(xml: string): unknown {
  const tokens = xml.replace(/<\?xml[^>]*>|<!DOCTYPE[^>]*>|<\/?plist[^>]*>/g, '').match(/<[^>]+>|[^<]+/g)!.filter((t) => t.trim() !== '');
  let i = 0;
  const text = (s: string) => s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&amp;/g, '&');
  const read = (): unknown => {
    const t = tokens[i++]!;
    if (t === '<true/>') return true;
    if (t === '<false/>') return false;
    if (t === '<string/>') return '';
    if (t === '<string>' || t === '<integer>' || t === '<key>') {
      const v = tokens[i]!.startsWith('<') ? '' : text(tokens[i++]!);
      i += 1;
      return t === '<integer>' ? Number(v) : v;
    }
    if (t === '<array>') {
      const out: unknown[] = [];
      while (tokens[i] !== '</array>') out.push(read());
      i += 1;
      return out;
    }
    if (t === '<dict>') {
      const out: Record<string, unknown> = {};
      while (tokens[i] !== '</dict>') {
        const key = read() as string;
        out[key] = read();
      }
      i += 1;
      return out;
    }
    throw new Error(`unexpected ${t}`);
  };
  return read();
}

/**
 * The launchd jobs (issue 9). No plutil here: the plist is validated against Apple's DTD with
 * xmllint (what `plutil -lint` checks for XML plists) and parsed by libplist's plistutil.
 */
describe.skipIf(!PLIST)(`launchd plist${PLIST ? '' : ` (${NO_OUTSIDE_VECTORS})`}`, () => {
  const dir = tempDir('localsign-plist-');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  function lint(text: string) {
    const file = join(dir, `p${Math.random().toString(36).slice(2)}.plist`);
    writeFileSync(file, text);
    const valid = spawnSync('xmllint', ['--noout', '--nonet', '--dtdvalid', DTD, file], { encoding: 'utf8' });
    // libplist reads it (to binary) and writes it back; what it wrote back is what it understood.
    spawnSync('plistutil', ['-i', file, '-o', `${file}.bin`, '-f', 'bin']);
    const back = spawnSync('plistutil', ['-i', `${file}.bin`, '-o', '-', '-f', 'xml'], { encoding: 'utf8' });
    return { valid, parsed: { status: back.status, stderr: back.stderr, stdout: back.status === 0 ? JSON.stringify(plistValue(back.stdout)) : '' } };
  }

  // The .pkg ships this rendering itself (build/macos-pkg.mjs; test/macos/pkg.test.ts compares it).
  it('the LaunchDaemon `service install` renders, and the .pkg ships, is valid against the plist DTD', () => {
    const text = renderLaunchdPlist({ exec: ['/usr/local/lib/localsign/localsign'], scope: 'system', logDir: '/Library/Logs/localsign' });
    const { valid, parsed } = lint(text);
    expect(valid.status, valid.stderr).toBe(0);
    expect(valid.stderr).not.toMatch(/validity error|parser error/);
    expect(parsed.status, parsed.stderr).toBe(0);
    expect(JSON.parse(parsed.stdout)).toEqual({
      Label: LAUNCHD_LABEL,
      ProgramArguments: ['/usr/local/lib/localsign/localsign', 'serve'],
      EnvironmentVariables: { NO_COLOR: '1' },
      RunAtLoad: true,
      KeepAlive: { SuccessfulExit: false },
      ThrottleInterval: 5,
      ExitTimeOut: 20,
      Umask: 63, // 0o077
      ProcessType: 'Background',
      StandardOutPath: '/Library/Logs/localsign/stdout.log',
      StandardErrorPath: '/Library/Logs/localsign/stderr.log',
    });
  });

  it('a LaunchAgent (--user) names its dir and port and escapes XML in paths', () => {
    const text = renderLaunchdPlist({ exec: ['/Users/a&b/bin/node', '/Users/a&b/<x>/localsign.cjs'], scope: 'user', logDir: '/Users/a&b/Library/Logs/localsign', args: ['--home', '/Users/a&b/.localsign', '--port', '8400'] });
    const { valid, parsed } = lint(text);
    expect(valid.status, valid.stderr).toBe(0);
    const json = JSON.parse(parsed.stdout) as Record<string, unknown>;
    expect(json.ProgramArguments).toEqual(['/Users/a&b/bin/node', '/Users/a&b/<x>/localsign.cjs', 'serve', '--home', '/Users/a&b/.localsign', '--port', '8400']);
    expect(json.ProcessType).toBeUndefined();
  });

  it('a broken plist fails the check (the check can fail)', () => {
    const { valid } = lint(renderLaunchdPlist({ exec: ['/x'], scope: 'system', logDir: '/l' }).replace('<true/>', '<yes/>'));
    expect(valid.status).not.toBe(0);
  });
});
