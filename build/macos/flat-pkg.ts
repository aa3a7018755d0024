/**
 * A flat installer package (.pkg), what `pkgbuild` + `productbuild` make on a Mac: a xar archive
 * holding a `Distribution` (the installer's script: title, the architectures and macOS versions it
 * installs on, the one choice) and one component directory with `PackageInfo` (identifier,
 * version, install-location, auth="root", the scripts), `Bom`, `Payload` (gzip of an odc cpio of
 * the files, installed relative to install-location) and `Scripts` (gzip of an odc cpio of
 * preinstall and postinstall, which installd runs as root with /bin/sh's shebang). Element and
 * attribute names per Apple's "Distribution XML Reference" and pkgbuild(1)'s PackageInfo.
 */
import { gzipSync } from 'node:zlib';
import { bom } from './bom';
import { cpioOdc } from './cpio-odc';
import { type PayloadEntry, checkPayloadTree } from './payload-entry';
import { xarArchive } from './xar';

export interface PkgScript {
  name: 'preinstall' | 'postinstall';
  text: string;
}

export interface FlatPkgInput {
  identifier: string;
  version: string;
  title: string;
  /** The lowest macOS the payload runs on (Node 22's runtimes: 11.0). */
  minOs: string;
  payload: PayloadEntry[];
  scripts: PkgScript[];
  /** Every archive entry's time (the commit's, for a reproducible package). */
  mtime: number;
  /** gzip level of Payload and Scripts (1 for tests, 9 for a release). */
  gzipLevel: number;
}

/** The interpreters a stock macOS has at these paths. */
const MACOS_SHELLS = ['#!/bin/sh', '#!/bin/bash', '#!/bin/zsh'];
const escapeXml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

export function checkScript(s: PkgScript): void {
  const first = s.text.slice(0, s.text.indexOf('\n'));
  if (!MACOS_SHELLS.includes(first.trim())) throw new Error(`${s.name} must start with one of ${MACOS_SHELLS.join(', ')}, not "${first}"`);
  if (s.text.includes('\r')) throw new Error(`${s.name} has CR line ends; /bin/sh would read "\\r" as part of each command`);
}

/** What the installer shows as the space the payload takes. */
const installKBytes = (payload: readonly PayloadEntry[]) => Math.ceil(payload.reduce((n, e) => n + (e.type === 'file' ? e.data.length : 0), 0) / 1024);

export function packageInfo(i: FlatPkgInput): string {
  const kbytes = installKBytes(i.payload);
  // overwrite-permissions="false": directories that exist already (/usr/local, /Library) keep the
  // modes and owners the system gave them.
  return [
    '<?xml version="1.0" encoding="utf-8"?>',
    `<pkg-info format-version="2" identifier="${escapeXml(i.identifier)}" version="${escapeXml(i.version)}" install-location="/" auth="root" overwrite-permissions="false">`,
    `  <payload numberOfFiles="${i.payload.length}" installKBytes="${kbytes}"/>`,
    '  <bundle-version/>',
    '  <upgrade-bundle/>',
    '  <update-bundle/>',
    '  <atomic-update-bundle/>',
    '  <strict-identifier/>',
    '  <relocate/>',
    '  <scripts>',
    ...i.scripts.map((s) => `    <${s.name} file="./${s.name}"/>`),
    '  </scripts>',
    '</pkg-info>',
    '',
  ].join('\n');
}

export function distribution(i: FlatPkgInput, component: string): string {
  const id = escapeXml(i.identifier);
  const kbytes = installKBytes(i.payload);
  return [
    '<?xml version="1.0" encoding="utf-8"?>',
    '<installer-gui-script minSpecVersion="2">',
    `  <title>${escapeXml(i.title)}</title>`,
    // A universal payload: installs natively on both, without asking for Rosetta.
    '  <options customize="never" require-scripts="false" hostArchitectures="x86_64,arm64" rootVolumeOnly="true"/>',
    '  <domains enable_anywhere="false" enable_currentUserHome="false" enable_localSystem="true"/>',
    '  <volume-check>',
    '    <allowed-os-versions>',
    `      <os-version min="${escapeXml(i.minOs)}"/>`,
    '    </allowed-os-versions>',
    '  </volume-check>',
    '  <choices-outline>',
    '    <line choice="default">',
    `      <line choice="${id}"/>`,
    '    </line>',
    '  </choices-outline>',
    '  <choice id="default"/>',
    `  <choice id="${id}" visible="false">`,
    `    <pkg-ref id="${id}"/>`,
    '  </choice>',
    `  <pkg-ref id="${id}" version="${escapeXml(i.version)}" onConclusion="none" installKBytes="${kbytes}">#${escapeXml(component)}</pkg-ref>`,
    '</installer-gui-script>',
    '',
  ].join('\n');
}

export function flatPkg(i: FlatPkgInput): Buffer {
  checkPayloadTree(i.payload);
  i.scripts.forEach(checkScript);
  const component = 'localsign.pkg';
  const info = packageInfo(i);
  const scripts = cpioOdc([
    { path: '.', type: 'dir', mode: 0o755, uid: 0, gid: 0, mtime: i.mtime, data: Buffer.alloc(0) },
    ...i.scripts.map((s) => ({ path: `./${s.name}`, type: 'file' as const, mode: 0o755, uid: 0, gid: 0, mtime: i.mtime, data: Buffer.from(s.text, 'utf8') })),
  ]);
  const file = (name: string, data: Buffer, compress: boolean) => ({ type: 'file' as const, name, data, compress, mode: 0o644, mtime: i.mtime });
  return xarArchive(
    [
      file('Distribution', Buffer.from(distribution(i, component), 'utf8'), true),
      {
        type: 'directory',
        name: component,
        mode: 0o755,
        mtime: i.mtime,
        children: [
          file('Bom', bom(i.payload), true),
          file('PackageInfo', Buffer.from(info, 'utf8'), true),
          file('Payload', gzipSync(cpioOdc(i.payload), { level: i.gzipLevel }), false),
          file('Scripts', gzipSync(scripts, { level: i.gzipLevel }), false),
        ],
      },
    ],
    i.mtime,
  );
}
