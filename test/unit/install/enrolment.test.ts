import { spawnSync } from 'node:child_process';
import { rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { initArgs, parseEnrolment, readEnrolment, redact } from '../../../src/install/enrolment';
import { tempDir } from '../../helpers/temp-dir';

describe('enrolment file', () => {
  const dir = tempDir('localsign-enrol-');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('embedded: init --embedded (the code, if any, is not used)', () => {
    const e = parseEnrolment('f', 'PLATFORM=embedded\r\nCODE=abc\r\n');
    expect(initArgs(e)).toEqual(['--embedded']);
    expect(initArgs(parseEnrolment('f', '# nothing but a comment\n'))).toEqual(['--embedded']);
    // The MSI's file (IniFile table): its keys under a section.
    expect(parseEnrolment('f', '[localsign]\r\nPLATFORM=https://p.example\r\nCODE=K7\r\n')).toMatchObject({ platform: 'https://p.example', code: 'K7' });
    expect(() => parseEnrolment('/e', '[a]b\n')).toThrow('/e line 1: expected PLATFORM=');
  });

  it('remote: the same init with other arguments (the remote-platform issue)', () => {
    const e = parseEnrolment('f', 'platform = https://platform.example\ncode="K7-99 X"\nCALLBACK_URL=http://10.0.0.5:8300/receive\nPLATFORM_CA=/etc/ca.pem\n');
    expect(initArgs(e)).toEqual(['--platform', 'https://platform.example', '--code', 'K7-99 X', '--callback-url', 'http://10.0.0.5:8300/receive', '--platform-ca', '/etc/ca.pem']);
  });

  it('refuses what it cannot use, without echoing the line (it may hold the code)', () => {
    expect(() => parseEnrolment('/e', 'PLATFORM=https://p.example\n')).toThrow('/e: CODE (the pairing code from the platform console) is missing');
    expect(() => parseEnrolment('/e', 'PLATFORM=ftp://p\nCODE=x\n')).toThrow('/e: PLATFORM must be "embedded" or the platform\'s https:// URL');
    expect(() => parseEnrolment('/e', 'TOKEN=secret-value\n')).toThrow(/^\/e line 1: expected PLATFORM=, CODE=, CALLBACK_URL= or PLATFORM_CA=$/);
    expect(() => readEnrolment(join(dir, 'missing'))).toThrow(`cannot read the enrolment file ${join(dir, 'missing')}: no such file or folder (ENOENT)`);
  });

  it('reads no file through a symbolic link and nothing but a regular file (issue 15: the dir is the service user\'s)', () => {
    // A file the link could lend root's eyes to, in the enrolment format so only the refusal stops it.
    writeFileSync(join(dir, 'secret'), 'PLATFORM=https://attacker.example\nCODE=root-only\n', { mode: 0o600 });
    symlinkSync(join(dir, 'secret'), join(dir, 'linked'));
    expect(() => readEnrolment(join(dir, 'linked'))).toThrow(`cannot read the enrolment file ${join(dir, 'linked')}: it is a symbolic link; put the file itself there`);
    // A FIFO would block a reader forever: refused at once instead of hanging the installer.
    expect(spawnSync('mkfifo', [join(dir, 'fifo')]).status).toBe(0);
    expect(() => readEnrolment(join(dir, 'fifo'))).toThrow(`cannot read the enrolment file ${join(dir, 'fifo')}: it is not a regular file`);
    expect(readEnrolment(join(dir, 'secret'))).toMatchObject({ platform: 'https://attacker.example' });
  });

  it('redacts the code from a failure message', () => {
    writeFileSync(join(dir, 'e'), 'PLATFORM=https://p.example\nCODE=K7-99-X\n');
    const e = readEnrolment(join(dir, 'e'));
    expect(redact('pairing code K7-99-X was refused (K7-99-X)', e)).toBe('pairing code [code] was refused ([code])');
  });
});
