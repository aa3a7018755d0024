/**
 * A push receiver for the double's own tests: a real HTTP server that checks each delivery with the
 * service's `verifyPush` (src/platform/remote/push-hmac.ts) and answers as PLATFORM.md says the service
 * does (401 bad signature or stale, 200 {ok:true}); it records every delivery.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifyPush } from '../../../src/platform/remote/push-hmac';

export interface Delivery {
  timestamp: string | undefined;
  signature: string | undefined;
  raw: string;
  verified: boolean;
}

export interface PushReceiver {
  url: string;
  deliveries: Delivery[];
  /** The secret verifyPush checks with (the agent's, once paired). */
  secret: string | null;
  close(): Promise<void>;
}

export async function startPushReceiver(): Promise<PushReceiver> {
  const receiver: PushReceiver = { url: '', deliveries: [], secret: null, close: async () => undefined };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const timestamp = req.headers['x-platform-timestamp'] as string | undefined;
      const signature = req.headers['x-platform-signature'] as string | undefined;
      const verified = verifyPush({ agentSecret: receiver.secret, timestamp, signature, rawBody: raw, nowSeconds: Math.floor(Date.now() / 1000) });
      receiver.deliveries.push({ timestamp, signature, raw: raw.toString('utf8'), verified });
      res.writeHead(verified ? 200 : 401, { 'content-type': 'application/json' }).end(JSON.stringify(verified ? { ok: true } : { error: 'bad push' }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/receive`;
  receiver.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return receiver;
}
