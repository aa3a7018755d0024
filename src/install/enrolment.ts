import { closeSync, constants, fstatSync, lstatSync, openSync, readFileSync, rmSync } from 'node:fs';
import { ConfigurationError } from '../domain/errors';
import { osErrorInWords } from '../domain/os-errors';

/**
 * Fleet enrolment: an installer run with a platform and a pairing code pairs the machine
 * with no prompt. The code travels in a file (KEY=value lines, written 0600 by the installer or
 * the .deb's postinst from a preseeded file or LOCALSIGN_ENROL_* variables), never on a command
 * line another user can read in a process listing; it is read once, handed to `init` in-process,
 * and the file is deleted after a successful pairing. It is never printed or logged.
 *
 *   PLATFORM=https://platform.example  (or "embedded": the local platform, tenant 0)
 *   CODE=…                             (the pairing code; not used by the embedded platform)
 *   CALLBACK_URL=…                     (optional: this service's /receive as the platform reaches it)
 *   PLATFORM_CA=…                      (optional: a CA file for the platform's TLS certificate)
 *
 * A `[section]` line is passed over: the MSI writes the file with Windows Installer's IniFile
 * table (installers/windows/localsign.wxs), which puts its keys under one.
 */
export interface Enrolment {
  platform: 'embedded' | string;
  code: string | null;
  callbackUrl: string | null;
  platformCa: string | null;
}

const KEYS = new Set(['PLATFORM', 'CODE', 'CALLBACK_URL', 'PLATFORM_CA']);

export function parseEnrolment(file: string, text: string): Enrolment {
  const values = new Map<string, string>();
  for (const [n, raw] of text.split(/\r?\n/).entries()) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || /^\[[^\]]*\]$/.test(line)) continue;
    const eq = line.indexOf('=');
    const key = eq > 0 ? line.slice(0, eq).trim().toUpperCase() : '';
    // The line is not echoed: it may be the code.
    if (!KEYS.has(key)) throw new ConfigurationError(`${file} line ${n + 1}: expected PLATFORM=, CODE=, CALLBACK_URL= or PLATFORM_CA=`);
    values.set(key, line.slice(eq + 1).trim().replace(/^"(.*)"$/, '$1'));
  }
  const platform = values.get('PLATFORM') || 'embedded';
  const code = values.get('CODE') || null;
  if (platform !== 'embedded') {
    if (!/^https?:\/\//i.test(platform)) throw new ConfigurationError(`${file}: PLATFORM must be "embedded" or the platform's https:// URL`);
    if (!code) throw new ConfigurationError(`${file}: CODE (the pairing code from the platform console) is missing`);
  }
  return { platform, code, callbackUrl: values.get('CALLBACK_URL') || null, platformCa: values.get('PLATFORM_CA') || null };
}

/**
 * The .deb's file sits in the service user's own dir (/var/lib/localsign), where that user can put
 * a link or a FIFO at any name. Read as root (`sudo localsign enrol --file …`), a link
 * would lend root's eyes to any file, and a FIFO would hang the installer: so the name is opened
 * without following a link (open(2) O_NOFOLLOW; lstat first on Windows, which has no such flag in
 * Node) and without blocking (O_NONBLOCK), and only a regular file is read.
 */
export function readEnrolment(file: string): Enrolment {
  const cannot = (why: string) => new ConfigurationError(`cannot read the enrolment file ${file}: ${why}`);
  const link = 'it is a symbolic link; put the file itself there';
  let fd: number;
  try {
    if (constants.O_NOFOLLOW === undefined && lstatSync(file).isSymbolicLink()) throw cannot(link);
    fd = openSync(file, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
  } catch (error) {
    if (error instanceof ConfigurationError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    // Linux and macOS answer ELOOP to O_NOFOLLOW on a link; FreeBSD EMLINK (open(2)).
    throw cannot(code === 'ELOOP' || code === 'EMLINK' ? link : osErrorInWords(error));
  }
  let text: string;
  try {
    if (!fstatSync(fd).isFile()) throw cannot('it is not a regular file');
    text = readFileSync(fd, 'utf8');
  } catch (error) {
    if (error instanceof ConfigurationError) throw error;
    throw cannot(osErrorInWords(error));
  } finally {
    closeSync(fd);
  }
  return parseEnrolment(file, text);
}

/** The arguments of `init` that pair as the file says (the remote path is only other arguments). */
export function initArgs(e: Enrolment): string[] {
  if (e.platform === 'embedded') return ['--embedded'];
  return [
    '--platform', e.platform,
    '--code', e.code!,
    ...(e.callbackUrl ? ['--callback-url', e.callbackUrl] : []),
    ...(e.platformCa ? ['--platform-ca', e.platformCa] : []),
  ];
}

/** A message with the code replaced, for a failure that might quote what it was given. */
export function redact(message: string, e: Enrolment): string {
  return e.code && e.code.length >= 4 ? message.split(e.code).join('[code]') : message;
}

export function removeEnrolment(file: string): void {
  rmSync(file, { force: true });
}
