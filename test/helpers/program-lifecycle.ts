/**
 * The process side of child-program.ts, for the programs it runs: stop on SIGTERM/SIGINT or when
 * stdin closes (the test process that spawned us is gone), closing the server's open sockets
 * (hung requests, tunnels) so the exit is prompt; then announce `listening on <url>`.
 */
import type { Server } from 'node:http';

export function runUntilParentExits(server: Server, url: string, label: string, cleanup: () => void = () => undefined): void {
  const stop = (): void => {
    cleanup();
    server.closeAllConnections();
    server.close(() => process.exit(0));
    setTimeout(() => process.exit(0), 500).unref();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  process.stdin.on('end', stop);
  process.stdin.on('error', stop);
  process.stdin.resume();
  process.stdout.write(`${label} listening on ${url}\n`);
}
