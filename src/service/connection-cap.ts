import { readFileSync } from 'node:fs';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/**
 * At most `max` connections across the service's listeners. A process that opened as many
 * connections as it had file descriptors stopped /health for everyone, with no key (40 of 42
 * failed at 6,000). Beyond the cap, a new connection closes the one idle longest: a keep-alive
 * connection between requests, or one whose header section has not arrived (which Node ends after
 * --header-timeout anyway); a connection with a request in progress (a long poll, an upload, a
 * signature) is never closed for another. So a flood of idle connections only ever pushes out its
 * own oldest, a caller who sends its request at once is served, and the service keeps descriptors
 * for its files and workers. Only when every connection is busy is the new one closed at once.
 */
export class ConnectionCap {
  /** Connections without a request in progress, longest idle first (a Set keeps insertion order). */
  private readonly idle = new Set<Socket>();
  private readonly busy = new Set<Socket>();
  readonly max: number;

  constructor(max: number, fdLimit: number | null = openFileLimit()) {
    // Under the process's own descriptor limit, with room for the stores, logs and worker pipes.
    this.max = fdLimit === null ? max : Math.max(8, Math.min(max, fdLimit - 128));
  }

  /** Connections held now. */
  get size(): number {
    return this.idle.size + this.busy.size;
  }

  attach(server: Server): void {
    server.on('connection', (socket: Socket) => this.admit(socket));
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      const socket = req.socket;
      if (!this.idle.delete(socket)) return;
      this.busy.add(socket);
      res.once('close', () => {
        // Idle again from now: to the back of the line.
        if (this.busy.delete(socket) && !socket.destroyed) this.idle.add(socket);
      });
    });
  }

  private admit(socket: Socket): void {
    if (this.size >= this.max) {
      const oldest = this.idle.values().next().value as Socket | undefined;
      if (!oldest) {
        socket.destroy();
        return;
      }
      this.idle.delete(oldest);
      oldest.destroy();
    }
    this.idle.add(socket);
    socket.once('close', () => {
      this.idle.delete(socket);
      this.busy.delete(socket);
    });
  }
}

/** The soft limit on open files (Linux: /proc/self/limits), or null where it cannot be read. */
function openFileLimit(): number | null {
  try {
    const m = /^Max open files\s+(\d+)/m.exec(readFileSync('/proc/self/limits', 'utf8'));
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}
