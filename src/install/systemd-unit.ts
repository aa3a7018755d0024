/**
 * The systemd unit `service install` writes and the .deb ships (one renderer for both, so what
 * the package installs is what the command would). systemd.exec(5) for each hardening line.
 */
export interface SystemdUnitOptions {
  /** The command that starts the service, before `serve` (the executable, or node + bundle). */
  exec: readonly string[];
  scope: 'system' | 'user';
  /** system scope: the service's config dir, writable under ProtectSystem=strict. */
  home?: string;
  /** system scope: the account the service runs as. */
  user?: string;
  /** user scope: the config dir and port when not the defaults (system scope: /etc/localsign/service.json). */
  args?: readonly string[];
}

/** systemd.syntax(7): a word with spaces or quotes is double-quoted, `\` and `"` escaped; `%` doubled (specifiers), `$` doubled (variables). */
export function quoteExecArg(arg: string): string {
  const escaped = arg.replace(/%/g, '%%').replace(/\$/g, '$$$$');
  return /[\s"'\\]/.test(escaped) || escaped === '' ? `"${escaped.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"` : escaped;
}

export function renderSystemdUnit(o: SystemdUnitOptions): string {
  const exec = [...o.exec, 'serve', ...(o.args ?? [])].map(quoteExecArg).join(' ');
  const lines = [
    '# Written by `localsign service install` (or shipped by the localsign package); changes are',
    o.scope === 'system' ? '# overwritten by the next install. Port and config dir: /etc/localsign/service.json.' : '# overwritten by the next install.',
    '[Unit]',
    'Description=localsign local signing service',
    // The platform and the TSA are reached over the network once it is up (PLATFORM.md).
    'After=network-online.target',
    'Wants=network-online.target',
    '',
    '[Service]',
    'Type=simple',
    `ExecStart=${exec}`,
    'Environment=NO_COLOR=1',
    // CONTRACT: SIGTERM drains in-flight HTTP exchanges within 10 s; PENDING requests resume at the next start.
    'KillSignal=SIGTERM',
    'TimeoutStopSec=20',
    'Restart=on-failure',
    'RestartSec=2',
    // Files are created 0600 and dirs 0700 whatever the caller's umask (CONTRACT Security).
    'UMask=0077',
    'NoNewPrivileges=true',
  ];
  if (o.scope === 'system') {
    const home = o.home ?? '/var/lib/localsign';
    lines.push(
      `User=${o.user ?? 'localsign'}`,
      `Group=${o.user ?? 'localsign'}`,
      // Read-only OS for the service: only its config dir is writable.
      'ProtectSystem=strict',
      `ReadWritePaths=${quoteExecArg(home)}`,
      'ProtectHome=true',
      'PrivateTmp=true',
      'ProtectKernelTunables=true',
      'ProtectKernelModules=true',
      'ProtectControlGroups=true',
      'RestrictSUIDSGID=true',
      'LockPersonality=true',
      // Not MemoryDenyWriteExecute: V8's JIT needs writable-executable pages. Not PrivateDevices:
      // a PKCS#11 chip may be a USB token reached through /dev (pcscd or the module itself).
    );
  }
  lines.push('', '[Install]', `WantedBy=${o.scope === 'system' ? 'multi-user.target' : 'default.target'}`, '');
  return lines.join('\n');
}
