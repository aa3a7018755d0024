/**
 * The launchd job `service install` writes on macOS and the .pkg ships: a LaunchDaemon (system,
 * runs as root before anyone logs in) or a LaunchAgent (`--user`, runs in the user's session).
 * Keys per launchd.plist(5).
 */
export const LAUNCHD_LABEL = 'com.localsign.service';

export interface LaunchdPlistOptions {
  exec: readonly string[];
  scope: 'system' | 'user';
  /** Where launchd sends stdout/stderr (the service also writes service.log in its config dir). */
  logDir: string;
  args?: readonly string[];
}

const escapeXml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

export function renderLaunchdPlist(o: LaunchdPlistOptions): string {
  const program = [...o.exec, 'serve', ...(o.args ?? [])].map((a) => `    <string>${escapeXml(a)}</string>`);
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">',
    '<!-- Written by `localsign service install` (or shipped by the localsign package).',
    '     Port and config dir of the system service: /etc/localsign/service.json -->',
    '<plist version="1.0">',
    '<dict>',
    `  <key>Label</key><string>${LAUNCHD_LABEL}</string>`,
    '  <key>ProgramArguments</key>',
    '  <array>',
    ...program,
    '  </array>',
    '  <key>EnvironmentVariables</key>',
    '  <dict><key>NO_COLOR</key><string>1</string></dict>',
    '  <key>RunAtLoad</key><true/>',
    // Restarted after a crash, not after `service stop` (SIGTERM: drain, then exit 0).
    '  <key>KeepAlive</key><dict><key>SuccessfulExit</key><false/></dict>',
    '  <key>ThrottleInterval</key><integer>5</integer>',
    // CONTRACT: SIGTERM drains within 10 s; launchd's SIGKILL comes after ExitTimeOut.
    '  <key>ExitTimeOut</key><integer>20</integer>',
    // 077: files 0600, dirs 0700 (CONTRACT Security). launchd reads the integer as decimal.
    '  <key>Umask</key><integer>63</integer>',
    ...(o.scope === 'system' ? ['  <key>ProcessType</key><string>Background</string>'] : []),
    `  <key>StandardOutPath</key><string>${escapeXml(`${o.logDir}/stdout.log`)}</string>`,
    `  <key>StandardErrorPath</key><string>${escapeXml(`${o.logDir}/stderr.log`)}</string>`,
    '</dict>',
    '</plist>',
    '',
  ].join('\n');
}
