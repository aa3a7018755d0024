// The Windows Installer package: installers/windows/localsign.wxs compiled by wixl
// (Debian's msitools), then the tables wixl 0.101 has no element for added with msibuild:
// - Environment: localsign's folder appended to the system PATH, removed again on uninstall
//   (WiX's <Environment Action="set" Part="last" System="yes">: Name "=-*Path", Value "[~];…");
// - IniFile: PLATFORM and CODE written into %ProgramData%\localsign\enrol by WriteIniValues, so
//   the code reaches `localsign enrol` in a file, never on a command line;
// - the enrolment component's condition (wixl turns every <Condition> into a launch condition),
//   the RemoveFile row and SecureCustomProperties.
import { execFileSync } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { numericVersion } from './windows-exe.mjs';

const MSI_TABLES = [
  'CREATE TABLE `Environment` (`Environment` CHAR(72) NOT NULL, `Name` CHAR(255) NOT NULL LOCALIZABLE, `Value` CHAR(255) LOCALIZABLE, `Component_` CHAR(72) NOT NULL PRIMARY KEY `Environment`)',
  "INSERT INTO `Environment` (`Environment`, `Name`, `Value`, `Component_`) VALUES ('LocalsignPath', '=-*Path', '[~];[INSTALLDIR]', 'Exe')",
  'CREATE TABLE `IniFile` (`IniFile` CHAR(72) NOT NULL, `FileName` CHAR(255) NOT NULL LOCALIZABLE, `DirProperty` CHAR(72), `Section` CHAR(96) NOT NULL LOCALIZABLE, `Key` CHAR(128) NOT NULL LOCALIZABLE, `Value` CHAR(255) NOT NULL LOCALIZABLE, `Action` SHORT NOT NULL, `Component_` CHAR(72) NOT NULL PRIMARY KEY `IniFile`)',
  // Action 0: msidbIniFileActionAddLine. An empty property writes an empty value, which
  // src/install/enrolment.ts reads as absent (PLATFORM then defaults to embedded).
  "INSERT INTO `IniFile` (`IniFile`, `FileName`, `DirProperty`, `Section`, `Key`, `Value`, `Action`, `Component_`) VALUES ('EnrolPlatform', 'enrol', 'DATADIR', 'localsign', 'PLATFORM', '[PLATFORM]', 0, 'Enrol')",
  "INSERT INTO `IniFile` (`IniFile`, `FileName`, `DirProperty`, `Section`, `Key`, `Value`, `Action`, `Component_`) VALUES ('EnrolCode', 'enrol', 'DATADIR', 'localsign', 'CODE', '[CODE]', 0, 'Enrol')",
  "UPDATE `Component` SET `Condition` = 'PLATFORM OR CODE' WHERE `Component` = 'Enrol'",
  // RemoveFile: an enrolment file left by an earlier try goes before WriteIniValues adds keys to it
  // (InstallMode 1: on install). wixl creates the table empty.
  "INSERT INTO `RemoveFile` (`FileKey`, `Component_`, `FileName`, `DirProperty`, `InstallMode`) VALUES ('StaleEnrol', 'Enrol', 'enrol', 'DATADIR', 1)",
  // The properties msiexec's command line sets, passed to the server side of a managed install
  // (GPO, Intune run it as SYSTEM): Windows Installer passes only these "restricted public
  // properties" there. wixl has no Secure="yes".
  "UPDATE `Property` SET `Value` = 'WIX_DOWNGRADE_DETECTED;WIX_UPGRADE_DETECTED;NSISINSTALLED;PLATFORM;CODE;PORT;PURGE' WHERE `Property` = 'SecureCustomProperties'",
];

/** Every file under `dir`, as wixl-heat reads them (one per line, paths relative to the stage). */
function filesUnder(dir, base) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(join(dir, e.name), base) : [relative(base, join(dir, e.name))]));
}

/** Builds `out` (.msi) from a stage holding localsign.exe, shawl.exe, LICENSES.txt and node_modules/. */
export function buildMsiPackage({ stage, out, version }) {
  // The chip bridge's tree, one component per file (wixl-heat: stable GUIDs from the paths).
  const list = filesUnder(join(stage, 'node_modules'), stage).map((p) => p.split('\\').join('/')).join('\n') + '\n';
  const heat = execFileSync('wixl-heat', ['-p', 'node_modules/', '--directory-ref', 'NODEMODULES', '--component-group', 'Koffi', '--var', 'var.KOFFISRC', '--win64'], { cwd: stage, input: list, encoding: 'utf8' });
  const koffiWxs = join(stage, 'koffi.wxs');
  writeFileSync(koffiWxs, heat);
  // Sources relative to the stage: wixl 0.101 looks files up under its include dirs only.
  const defines = { VERSION: version, VERSION4: numericVersion(version).join('.'), SRC: '.', KOFFISRC: 'node_modules', Win64: 'yes' };
  execFileSync('wixl', ['-a', 'x64', ...Object.entries(defines).flatMap(([k, v]) => ['-D', `${k}=${v}`]), '-o', resolve(out), resolve('installers', 'windows', 'localsign.wxs'), koffiWxs], { cwd: stage, stdio: ['ignore', 'inherit', 'inherit'] });
  for (const query of MSI_TABLES) execFileSync('msibuild', [out, '-q', query], { stdio: ['ignore', 'inherit', 'inherit'] });
  return out;
}
