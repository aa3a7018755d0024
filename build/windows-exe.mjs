// The Windows executable's identity and signature:
// - VERSIONINFO (file version, product name, description) with resedit, after postject: the
//   runtime's own says "Node.js", which is what Explorer, Task Manager and inventory tools show;
// - Authenticode with osslsigncode, when a certificate is supplied (LOCALSIGN_SIGN_CERT and
//   LOCALSIGN_SIGN_KEY as PEM, or LOCALSIGN_SIGN_PFX with LOCALSIGN_SIGN_PASSWORD), last of all:
//   any change after it breaks the signature.
import { execFileSync } from 'node:child_process';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { step, toolPackage } from './tools.mjs';

/** "0.2.0" -> [0, 2, 0, 0]; a pre-release tag is dropped from the numeric version. */
export function numericVersion(version) {
  const parts = version.split(/[.+-]/).slice(0, 3).map((p) => Number.parseInt(p, 10) || 0);
  while (parts.length < 4) parts.push(0);
  return parts;
}

export async function stampVersionInfo(exePath, { version, commit, description = 'localsign local signing service', originalFilename = 'localsign.exe' }) {
  toolPackage('pe-library@2.0.1');
  const dir = toolPackage('resedit@3.1.0');
  const ResEdit = await import(pathToFileURL(join(dir, 'dist', 'index.js')).href);
  const exe = ResEdit.NtExecutable.from(readFileSync(exePath), { ignoreCert: true });
  const res = ResEdit.NtExecutableResource.from(exe);
  const infos = ResEdit.Resource.VersionInfo.fromEntries(res.entries);
  const vi = infos[0] ?? ResEdit.Resource.VersionInfo.createEmpty();
  const [a, b, c, d] = numericVersion(version);
  const langs = vi.getAllLanguagesForStringValues();
  const lang = langs[0] ?? { lang: 1033, codepage: 1200 };
  vi.setFileVersion(a, b, c, d, lang.lang);
  vi.setProductVersion(a, b, c, d, lang.lang);
  vi.setStringValues(lang, {
    CompanyName: 'localsign',
    FileDescription: description,
    ProductName: 'localsign',
    FileVersion: version,
    ProductVersion: `${version} (${commit})`,
    InternalName: originalFilename.replace(/\.exe$/, ''),
    OriginalFilename: originalFilename,
    LegalCopyright: 'localsign contributors; includes Node.js (MIT)',
  });
  vi.outputToResourceEntries(res.entries);
  res.outputResource(exe);
  const tmp = `${exePath}.tmp`;
  writeFileSync(tmp, Buffer.from(exe.generate()));
  renameSync(tmp, exePath);
  step('win', `stamped ${exePath}: ProductName localsign, FileVersion ${version}`);
}

/** The signing material from the environment, or null: signing is skipped without a certificate. */
export function signingMaterial(env = process.env) {
  if (env.LOCALSIGN_SIGN_PFX) return { pfx: env.LOCALSIGN_SIGN_PFX, password: env.LOCALSIGN_SIGN_PASSWORD ?? '', tsa: env.LOCALSIGN_SIGN_TSA ?? null };
  if (env.LOCALSIGN_SIGN_CERT && env.LOCALSIGN_SIGN_KEY) return { cert: env.LOCALSIGN_SIGN_CERT, key: env.LOCALSIGN_SIGN_KEY, tsa: env.LOCALSIGN_SIGN_TSA ?? null };
  if (env.LOCALSIGN_SIGN_CERT || env.LOCALSIGN_SIGN_KEY) throw new Error('LOCALSIGN_SIGN_CERT and LOCALSIGN_SIGN_KEY go together (PEM files), or use LOCALSIGN_SIGN_PFX');
  return null;
}

/** Authenticode (SHA-256) in place with osslsigncode; -ts adds an RFC 3161 timestamp when a TSA is given. */
export function signExe(exePath, material, { name = 'localsign' } = {}) {
  const out = `${exePath}.signed`;
  const keyArgs = material.pfx ? ['-pkcs12', material.pfx, '-pass', material.password] : ['-certs', material.cert, '-key', material.key];
  execFileSync('osslsigncode', ['sign', ...keyArgs, '-h', 'sha256', '-n', name, ...(material.tsa ? ['-ts', material.tsa] : []), '-in', exePath, '-out', out], { stdio: ['ignore', 'ignore', 'inherit'] });
  renameSync(out, exePath);
  step('win', `signed ${exePath} (Authenticode, sha256)`);
}

/** Reads the VERSIONINFO strings back (tests; and to check a release before shipping it). */
export async function readVersionInfo(exePath) {
  toolPackage('pe-library@2.0.1');
  const ResEdit = await import(pathToFileURL(join(toolPackage('resedit@3.1.0'), 'dist', 'index.js')).href);
  const exe = ResEdit.NtExecutable.from(readFileSync(exePath), { ignoreCert: true });
  const vi = ResEdit.Resource.VersionInfo.fromEntries(ResEdit.NtExecutableResource.from(exe).entries)[0];
  if (!vi) return null;
  const lang = vi.getAllLanguagesForStringValues()[0];
  return { fixed: vi.fixedInfo, strings: vi.getStringValues(lang) };
}

// node build/windows-exe.mjs sign FILE | info FILE: the same steps as the build, on one file.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [verb, file] = process.argv.slice(2);
  if (verb === 'sign') {
    const material = signingMaterial();
    if (!material) throw new Error('no certificate: set LOCALSIGN_SIGN_CERT and LOCALSIGN_SIGN_KEY (PEM), or LOCALSIGN_SIGN_PFX');
    signExe(file, material);
  } else if (verb === 'info') {
    process.stdout.write(JSON.stringify(await readVersionInfo(file)) + '\n');
  } else {
    throw new Error('usage: node build/windows-exe.mjs sign|info FILE');
  }
}
