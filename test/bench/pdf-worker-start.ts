// Bundled and run by test/bench/run.mjs: a PDF worker process started as the service starts one
// (workers/handles.ts: its options in NODE_OPTIONS, an IPC channel), timed from its spawn to READY
// (Node's own start) and to the answer of its warm task (the engine loaded and run once): the chain
// the first small PDF at once after a start waits on. Arguments: the worker's command (the bundle's
// launcher, or a single executable), then the number of starts. Prints one JSON line: the medians.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { DEFAULTS } from '../../src/config/config';
import { PDF_WORKER_ARG } from '../../src/workers/entry';
import { WORKER_SEMI_SPACE_MB } from '../../src/workers/handles';
import { nodeOptionsValue, pdfWorkerOptions } from '../../src/workers/sandbox';

const [command, ...rest] = process.argv.slice(2);
const starts = Number(rest.at(-1) ?? 7);
const script = command!.endsWith('.cjs') ? command! : null;
const sea = script === null;

async function once(): Promise<{ ready: number; warm: number }> {
  const scratch = mkdtempSync(join(tmpdir(), 'localsign-bench-worker-'));
  try {
    const options = pdfWorkerOptions({
      heapMb: DEFAULTS.documentMemoryLimitMb,
      semiSpaceMb: WORKER_SEMI_SPACE_MB,
      // The single executable is Node 22, whatever runs this harness.
      nodeVersion: sea ? '22.23.3' : process.versions.node,
      readFolders: script ? [dirname(script)] : [],
      scratch,
    });
    const started = performance.now();
    const child = spawn(script ? process.execPath : command!, [...(script ? [script] : []), PDF_WORKER_ARG], {
      env: { PATH: process.env.PATH, NODE_OPTIONS: nodeOptionsValue(options) },
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
      serialization: 'advanced',
    });
    const times = await new Promise<{ ready: number; warm: number }>((resolve, reject) => {
      let ready = 0;
      child.on('message', (m: { ready?: string; ok?: boolean }) => {
        if (m.ready) {
          ready = performance.now() - started;
          child.send({ op: 'warm', scratch });
        } else if (m.ok) resolve({ ready, warm: performance.now() - started });
        else reject(new Error(`the warm task failed: ${JSON.stringify(m)}`));
      });
      child.on('exit', (code) => reject(new Error(`the PDF worker exited (${code}) before its warm answer`)));
    });
    child.removeAllListeners('exit');
    child.disconnect();
    await new Promise((resolve) => child.on('exit', resolve));
    return times;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

void (async () => {
  const runs: { ready: number; warm: number }[] = [];
  for (let i = 0; i < starts; i++) runs.push(await once());
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  console.log(JSON.stringify({ readyMs: median(runs.map((r) => r.ready)), warmMs: median(runs.map((r) => r.warm)), starts }));
})();
