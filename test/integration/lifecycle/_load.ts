import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { join } from 'node:path';
import { recoverAddress } from 'ethers';
import { runPdfsig } from '../../helpers/pdf-tools';
import type { authed } from '../../helpers/service-process';
import { tempDir } from '../../helpers/temp-dir';

/** Shared by the lifecycle tests: a load of real sign requests, and checks of what came back. */

type Call = ReturnType<typeof authed>;

export const PDF_B64 = readFileSync(join(__dirname, '../../vectors/pdf/pdflib-xref-table.pdf')).toString('base64');

export interface Catalog {
  evm: { credential_key: string; address: string };
  pades: { credential_key: string }[];
}

export async function readCatalog(call: Call): Promise<Catalog> {
  const { credentials } = (await (await call('/v1/credentials')).json()) as { credentials: { credential_key: string; type: string; address?: string }[] };
  const evm = credentials.find((c) => c.type === 'evm');
  if (!evm?.address) throw new Error('no evm credential in the catalog');
  return { evm: { credential_key: evm.credential_key, address: evm.address }, pades: credentials.filter((c) => c.type === 'pades') };
}

export interface Accepted {
  id: string;
  kind: 'blockchain' | 'pades';
  txHash?: string;
}

/** The n-th distinct 32-byte hash (deterministic, so a failure can be replayed). */
export const txHashOf = (n: number) => (n.toString(16).padStart(8, '0') + 'c0ffee').repeat(8).slice(0, 64);

/** One sign request; the id when the service answered 202, null otherwise. Throws when the socket fails. */
export async function postOne(call: Call, catalog: Catalog, n: number): Promise<Accepted | null> {
  if (n % 2 === 0) {
    const txHash = txHashOf(n);
    const res = await call('/v1/blockchain/sign', { method: 'POST', body: JSON.stringify({ tx_hash: `0x${txHash}`, credential_key: catalog.evm.credential_key, chain_id: 1 }) });
    const body = (await res.json()) as { request_id?: string };
    return res.status === 202 && body.request_id ? { id: body.request_id, kind: 'blockchain', txHash } : null;
  }
  const credential = catalog.pades[(n >> 1) % catalog.pades.length]!;
  const res = await call('/v1/pades/sign', { method: 'POST', body: JSON.stringify({ pdf_base64: PDF_B64, credential_key: credential.credential_key, signer_name: `Client ${n}` }) });
  const body = (await res.json()) as { request_id?: string };
  return res.status === 202 && body.request_id ? { id: body.request_id, kind: 'pades' } : null;
}

/**
 * One request of each kind to DONE before a load: the first ones pay for loading the PAdES engine,
 * starting the worker and warming the JIT, which on a busy machine can eat the whole load window.
 */
export async function warmUp(call: Call, catalog: Catalog): Promise<void> {
  for (const n of [1000001, 1000002]) {
    const a = await postOne(call, catalog, n);
    if (!a) throw new Error('warm-up request was refused');
    await settle(call, [a.id], 60_000);
  }
}

/**
 * `clients` loops posting alternately blockchain and PAdES requests until `until()` resolves or
 * the service goes away. Returns every request the service acknowledged with 202.
 */
export async function runLoad(
  call: Call,
  catalog: Catalog,
  o: { clients: number; until: Promise<unknown>; accepted?: Accepted[] },
): Promise<{ accepted: Accepted[]; refused: number }> {
  const accepted: Accepted[] = o.accepted ?? [];
  let refused = 0;
  let stop = false;
  void o.until.then(() => (stop = true));
  let counter = 0;
  const client = async () => {
    while (!stop) {
      const n = counter++;
      try {
        const a = await postOne(call, catalog, n);
        if (a) accepted.push(a);
        else refused += 1;
      } catch {
        return; // the service is gone (killed or shutting down): this client is done
      }
    }
  };
  await Promise.all(Array.from({ length: o.clients }, client));
  return { accepted, refused };
}

export interface ResultEntry {
  request_id: string;
  status: string;
}

/** Polls GET /v1/results until none of `ids` is PENDING (or `timeoutMs` passes); returns the statuses. */
export async function settle(call: Call, ids: string[], timeoutMs: number): Promise<Map<string, string>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { results } = (await (await call('/v1/results?limit=1000')).json()) as { results: ResultEntry[] };
    const byId = new Map(results.map((r) => [r.request_id, r.status]));
    const open = ids.filter((id) => byId.get(id) === 'PENDING');
    if (open.length === 0 || Date.now() > deadline) return new Map(ids.map((id) => [id, byId.get(id) ?? 'MISSING']));
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** DONE blockchain result: the address recovered from (r, s, v) over the hash is the credential's. */
export async function verifyBlockchain(call: Call, a: Accepted, address: string): Promise<string> {
  const body = (await (await call(`/v1/results/${a.id}`)).json()) as { r: string; s: string; v: number; y_parity: number; chain_id: number };
  if (body.v !== 1 * 2 + 35 + body.y_parity) return `${a.id}: v ${body.v} does not match y_parity ${body.y_parity} with chain 1`;
  const recovered = recoverAddress(`0x${a.txHash}`, { r: body.r, s: body.s, v: 27 + body.y_parity });
  return recovered === address ? 'ok' : `${a.id}: recovered ${recovered}, expected ${address}`;
}

/** DONE PAdES results: pdfsig's verdict on the last signature of each ("Signature is Valid."). */
export async function verifyPades(call: Call, list: Accepted[]): Promise<string[]> {
  const dir = tempDir('localsign-verify-');
  try {
    const verdicts: string[] = [];
    for (const a of list) {
      const body = (await (await call(`/v1/results/${a.id}`)).json()) as { pdf_base64: string };
      const file = join(dir, `${a.id}.pdf`);
      writeFileSync(file, Buffer.from(body.pdf_base64, 'base64'));
      const sigs = (await runPdfsig(file)).signatures;
      verdicts.push(sigs.length === 1 ? sigs[0]!.validation : `${sigs.length} signatures`);
    }
    return verdicts;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export interface SilentServer {
  url: string;
  /** Connections accepted so far. */
  connections(): number;
  close(): Promise<void>;
}

/**
 * A "timestamp authority" that accepts connections and never answers: an honest way to have
 * signing jobs that do not complete (the TSA client waits 15 s before it gives up).
 */
export async function startSilentServer(): Promise<SilentServer> {
  const sockets = new Set<Socket>();
  let accepted = 0;
  const server = createServer((socket) => {
    accepted += 1;
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/tsa`,
    connections: () => accepted,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
