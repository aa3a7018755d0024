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
    // systemd.resource-control(5). Documents are held off the V8 heap (Buffers, the PDF workers'
    // own heaps: config.ts), so the cgroup is what bounds the whole process. The largest body the
    // service takes by default (256 MiB, --max-body) peaks at about 1.1 GiB through the JSON
    // route and 1 GiB through the raw one (the README's 100 MB rows, 597 and 382 MiB, scaled); a
    // hostile document must stay under +768 MiB. Above MemoryHigh the kernel reclaims
    // and throttles instead of killing; MemoryMax is the hard stop (an OOM kill, then
    // Restart=on-failure), kept above any legitimate request so that a request resumed after the
    // restart does not kill the service again.
    // Node sizes its main V8 heap from the cgroup's limit (process.constrainedMemory()): about
    // 1 GiB under MemoryMax=2G, measured with Node 20, enough since documents are not on it.
    'MemoryHigh=1536M',
    'MemoryMax=2G',
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
      // An unprivileged user needs no capability in its bounding set (capabilities(7)). The rest
      // is systemd.exec(5)'s sandbox, each line something the service never does; together they
      // bring `systemd-analyze security` from 7.6 (EXPOSED) to 1.5 (OK).
      'CapabilityBoundingSet=',
      'AmbientCapabilities=',
      'ProtectClock=true',
      'ProtectKernelLogs=true',
      'ProtectHostname=true',
      'ProtectProc=invisible',
      'PrivateMounts=true',
      'RemoveIPC=true',
      'RestrictRealtime=true',
      'RestrictNamespaces=true',
      // Loopback TCP (the API), the platform, TSA and OCSP/CRL over IPv4/IPv6, and AF_UNIX for
      // pcscd's socket (/run/pcscd/pcscd.comm), which smart-card PKCS#11 modules talk to. glibc's
      // getaddrinfo asks netlink only for AI_ADDRCONFIG and assumes both families without it.
      'RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6',
      'SystemCallArchitectures=native',
      // The allow-list systemd.exec(5) recommends for services, minus what needs privileges; a
      // refused call fails with EPERM (V8 and libuv fall back, e.g. pkey_alloc, io_uring) rather
      // than killing the process. @resources (setrlimit, setpriority, sched_setaffinity) stays:
      // it acts on the service's own processes, and a vendor PKCS#11 module may use it.
      'SystemCallFilter=@system-service',
      'SystemCallFilter=~@privileged',
      'SystemCallErrorNumber=EPERM',
      // ProtectClock= implies DeviceAllow=char-rtc r, which already closes the device list
      // (systemd.resource-control(5), DevicePolicy=auto): say so, and keep USB tokens that a
      // PKCS#11 module opens itself (libusb: /dev/bus/usb, hidraw) reachable. pcscd's tokens go
      // through its socket, no device node. Not PrivateDevices=: it would hide /dev/bus/usb.
      'DevicePolicy=closed',
      'DeviceAllow=char-usb_device rw',
      'DeviceAllow=char-hidraw rw',
      // Not MemoryDenyWriteExecute: V8's JIT needs writable-executable pages. Not PrivateNetwork=
      // or IPAddressDeny=: the platform, TSA and OCSP responders are wherever the operator says.
    );
  }
  lines.push('', '[Install]', `WantedBy=${o.scope === 'system' ? 'multi-user.target' : 'default.target'}`, '');
  return lines.join('\n');
}
